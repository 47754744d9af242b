// Shopping cart with discounts.
const TAX = 0.08;

class Cart {
  constructor(customer) {
    this.customer = customer;
    this.lines = [];
  }

  add(product, price, quantity = 1) {
    if (price < 0) throw new Error(`negative price for ${product}`);
    this.lines.push({ product, price, quantity });
    return this;
  }

  subtotal() {
    return this.lines.reduce((sum, line) => sum + line.price * line.quantity, 0);
  }

  /* Discounts: 10% over 100, 20% over 500. */
  discount() {
    const amount = this.subtotal();
    if (amount > 500) return amount * 0.2;
    if (amount > 100) return amount * 0.1;
    return 0;
  }

  total() {
    const net = this.subtotal() - this.discount();
    return Math.round(net * (1 + TAX) * 100) / 100;
  }
}

function receipt(cart) {
  const rows = cart.lines.map((line) => `${line.product}: ${line.quantity} x ${line.price}`);
  rows.push("total: " + cart.total() + " // not a comment");
  return rows.join('\n');
}

const cart = new Cart("ada");
cart.add("book", 12.5, 2).add('pen', 1.2, 10);
console.log(receipt(cart));
module.exports = { Cart, receipt };
