// inventory.ts -- stock levels of a small shop, with typed records.
import { readFileSync } from 'fs';

export enum Category {
  Food = 'food',
  Tools = "tools",
  Other = 'other',
}

export interface Item {
  readonly sku: string;
  name: string;
  category: Category;
  price: number;
  quantity?: number;
}

type Filter<T> = (item: T) => boolean;

const SKU = /^[A-Z]{3}-\d{4}$/;
const TAX_RATE = 0.2;
const LOW_STOCK = 5;

function parseLine(line: string): Item | undefined {
  const [sku, name, category, price, quantity] = line.split(/\s*;\s*/);
  if (!SKU.test(sku)) {
    return undefined;
  }
  return {
    sku,
    name: name.replace(/"/g, ''),
    category: (category as Category) ?? Category.Other,
    price: Number(price),
    quantity: quantity ? parseInt(quantity, 10) : 0,
  };
}

export class Inventory<T extends Item = Item> {
  private items = new Map<string, T>();

  constructor(private readonly owner: string) {}

  add(item: T): this {
    this.items.set(item.sku, item);
    return this;
  }

  where(filter: Filter<T>): T[] {
    return [...this.items.values()].filter(filter);
  }

  total(): number {
    let sum = 0;
    for (const item of this.items.values()) {
      sum += item.price * (item.quantity ?? 0);
    }
    return Math.round(sum * (1 + TAX_RATE) * 100) / 100;
  }

  lowStock(): string[] {
    return this.where((i) => (i.quantity ?? 0) < LOW_STOCK).map((i) => `${i.name} (${i.sku})`);
  }

  toString(): string {
    return `Inventory of ${this.owner}: ${this.items.size} items, total ${this.total().toFixed(2)}`;
  }
}

export function load(path: string, owner = 'shop'): Inventory {
  const inv = new Inventory(owner);
  const text = readFileSync(path, { encoding: 'utf8' });
  for (const line of text.split('\n')) {
    const item = parseLine(line.trim());
    if (item !== undefined) inv.add(item);
  }
  return inv;
}

const sample = load(process.argv[2] ?? 'stock.txt');
console.log(String(sample), sample.lowStock().join(', '));
const ratio = sample.total() / 2 / LOW_STOCK;
console.log(ratio as number, <const>['done']);
