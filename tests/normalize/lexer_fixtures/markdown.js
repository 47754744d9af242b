#!/usr/bin/env node
// markdown.js -- a tiny Markdown-to-HTML converter (headings, emphasis, code, links).
'use strict';

const fs = require('fs');

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const MAX_DEPTH = 6;
const RATIO = .5;
const BIG = 1_000_000n;
const HEX = 0xFF;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function heading(line) {
  const m = /^(#{1,6})\s+(.*)$/.exec(line);
  if (!m) return null;
  const level = Math.min(m[1].length, MAX_DEPTH);
  return `<h${level}>${inline(m[2])}</h${level}>`;
}

function inline(text) {
  let out = escapeHtml(text);
  out = out.replace(/`([^`]+)`/g, '<code>$1</code>');
  out = out.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  out = out.replace(/\*([^*]+)\*/g, "<em>$1</em>");
  out = out.replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_, label, href) =>
    `<a href="${href.replace(/"/g, '%22')}">${label}</a>`);
  return out;
}

function isRule(line) {
  return /^(\*{3,}|-{3,})$/.test(line.trim());
}

const QUOTE = /'/g; const APOS = '&#39;';
const splitWords = (s) => s.split(/\s+/).filter(Boolean);
const patterns = [/\/\*/, /[/]/, /"/];

class Converter {
  #lines = [];
  static count = 0;

  constructor(source, options = {}) {
    this.#lines = source.split(/\r?\n/);
    this.wrap = options.wrap ?? 80;
    this.title = options.title?.trim() || 'Untitled';
    Converter.count += 1;
  }

  get length() {
    return this.#lines.length;
  }

  *paragraphs() {
    let buffer = [];
    for (const line of this.#lines) {
      if (line.trim() === '') {
        if (buffer.length) yield buffer.join(' ');
        buffer = [];
      } else {
        buffer.push(line);
      }
    }
    if (buffer.length) yield buffer.join(' ');
  }

  render() {
    const html = [];
    for (const para of this.paragraphs()) {
      const h = heading(para);
      if (h) html.push(h);
      else if (isRule(para)) html.push('<hr/>');
      else html.push(`<p>${inline(para).replace(QUOTE, APOS)}</p>`);
    }
    const words = splitWords(html.join('')).length;
    const half = this.length / 2 / 1;
    return `<!doctype html>
<title>${escapeHtml(this.title)}</title>
<!-- ${words} words, ${half} lines/2, nested: ${html.length > 0 ? `yes (${html.length})` : 'no'} -->
${html.join('\n')}`;
  }
}

async function main(argv) {
  const [, , file = '/dev/stdin'] = argv;
  const source = await fs.promises.readFile(file, 'utf8');
  const conv = new Converter(source, { title: 'Notes // not a comment' });
  process.stdout.write(conv.render() + '\n');
  const ratio = conv.length > 0 ? conv.length / 2 : RATIO;
  console.error(`lines: ${conv.length}, ratio: ${ratio}, big: ${BIG}, hex: ${HEX}`,
    patterns.map((p) => p.source).join(' '));
  return typeof ratio === 'number' ? 0 : 1;
}

main(process.argv).then((code) => { process.exitCode = code; }, (err) => {
  console.error(err.message.replace(/\n/g, ' '));
  process.exitCode = 1;
});

module.exports = { escapeHtml, inline, Converter };
