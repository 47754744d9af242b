import java.util.LinkedList;

public class BankAccount {
    public static class InsufficientFunds extends Exception {
        public InsufficientFunds(long missing) {
            super("missing " + missing + " cents");
        }
    }

    private final String holder;
    private long balanceCents;
    private final LinkedList<Long> history = new LinkedList<>();

    public BankAccount(String holder, long openingCents) {
        this.holder = holder;
        this.balanceCents = openingCents;
        history.add(openingCents);
    }

    public synchronized void deposit(long cents) {
        if (cents <= 0) throw new IllegalArgumentException("deposit must be positive");
        balanceCents += cents;
        history.add(cents);
    }

    public synchronized void withdraw(long cents) throws InsufficientFunds {
        if (cents > balanceCents) {
            throw new InsufficientFunds(cents - balanceCents);
        }
        balanceCents -= cents;
        history.add(-cents);
    }

    public void transferTo(BankAccount other, long cents) throws InsufficientFunds {
        withdraw(cents);
        other.deposit(cents);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(holder).append(':');
        while (!history.isEmpty() && sb.length() < 80) {
            sb.append(' ').append(history.removeFirst());
        }
        return sb.append(" = ").append(balanceCents).toString();
    }

    public static void main(String[] args) throws Exception {
        BankAccount a = new BankAccount("ann", 10000), b = new BankAccount("bo", 50);
        a.transferTo(b, 2500);
        try {
            b.withdraw(999999);
        } catch (InsufficientFunds e) {
            System.err.println(e.getMessage());
        }
        System.out.println(a + "\n" + b);
    }
}
