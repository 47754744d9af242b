//! A tokenizer for a small calculator language, for the compilers course.
//!
//! Reads expressions like `let x = 3.5 * (y + 2);` and prints the tokens.

use std::collections::HashMap;
use std::fmt;

const MAX_TOKENS: usize = 1_000_000;
const EPSILON: f64 = 1e-9;
const MASK: u8 = 0xFF_u8;
const HELP: &str = r"usage: tokenize [FILE]
  reads C:\files\like\this as raw text";
const QUOTED: &str = r#"a "quoted" word, and a lone " quote"#;
const DOUBLE: &str = r##"contains "# but not the end"##;
const MAGIC: &[u8] = b"\x7fELF";
const NEWLINE: u8 = b'\n';

#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Number(f64),
    Ident(&'a str),
    Str(String),
    Op(char),
    Keyword(&'static str),
}

impl<'a> fmt::Display for Token<'a> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{n}"),
            Token::Ident(s) => write!(f, "ident({s})"),
            Token::Str(s) => write!(f, "\"{}\"", s.escape_default()),
            Token::Op(c) => write!(f, "'{c}'"),
            Token::Keyword(k) => f.write_str(k),
        }
    }
}

/// Splits `src` into tokens; a `'` starts a character, a `"` a string.
pub fn tokenize<'a>(src: &'a str) -> Result<Vec<Token<'a>>, String> {
    let keywords: HashMap<&str, &'static str> =
        [("let", "let"), ("fn", "fn"), ("if", "if")].into_iter().collect();
    let bytes = src.as_bytes();
    let mut tokens = Vec::with_capacity(bytes.len() / 2);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match c {
            ' ' | '\t' | '\r' | '\n' => i += 1,
            '0'..='9' | '.' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                let n: f64 = src[start..i].parse().map_err(|e| format!("{e}"))?;
                tokens.push(Token::Number(n));
            }
            'a'..='z' | 'A'..='Z' | '_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &src[start..i];
                tokens.push(match keywords.get(word) {
                    Some(k) => Token::Keyword(k),
                    None => Token::Ident(word),
                });
            }
            '"' => {
                let end = src[i + 1..].find('"').ok_or("unterminated string")?;
                tokens.push(Token::Str(src[i + 1..i + 1 + end].to_string()));
                i += end + 2;
            }
            '\'' => return Err(format!("character literals are not supported at {i}")),
            '+' | '-' | '*' | '/' | '(' | ')' | '=' | ';' => {
                tokens.push(Token::Op(c));
                i += 1;
            }
            other => return Err(format!("unexpected {other:?} at byte {i}")),
        }
        if tokens.len() > MAX_TOKENS {
            return Err("too many tokens".into());
        }
    }
    Ok(tokens)
}

fn main() {
    let path = std::env::args().nth(1);
    let src = match path.as_deref() {
        Some(p) => std::fs::read_to_string(p).expect("readable file"),
        None => String::from("let x = 3.5 * (y + 2); // the example"),
    };
    match tokenize(&src) {
        Ok(tokens) => {
            for (n, t) in tokens.iter().enumerate().take(20) {
                println!("{n:>3}: {t}");
            }
            let sum: f64 = tokens.iter().filter_map(|t| match t {
                Token::Number(x) => Some(*x),
                _ => None,
            }).sum();
            println!("sum {} (eps {EPSILON}, mask {MASK:#x}, nl {NEWLINE})", sum);
        }
        Err(e) => eprintln!("error: {e}\n{HELP}\n{QUOTED} {DOUBLE} {:?}", MAGIC),
    }
}
