package edu.course.lab7;

import java.time.LocalDate;
import java.util.*;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A small lending library: books, members and loans.
 * The "due date" is 21 days after the loan; it's {@code LOAN_DAYS}.
 */
public final class Library {
    private static final int LOAN_DAYS = 21;
    private static final long MAX_FINE_CENTS = 10_000L;
    private static final double DAILY_FINE = 0.25d;
    private static final float RATE = 3.5f;
    private static final int FLAGS = 0x1F | 0b1010;
    private static final char SEPARATOR = '\t';
    private static final char QUOTE = '\'';
    private static final char DQUOTE = '"';
    private static final String HEADER = """
        Title                Author            Due
        -------------------- ----------------- ----------
        "Loans" // not a comment
        """;

    record Book(String isbn, String title, String author) {
        Book {
            Objects.requireNonNull(isbn, "isbn");
            if (!isbn.matches("\\d{3}-\\d{10}")) {
                throw new IllegalArgumentException("bad ISBN: \"" + isbn + "\"");
            }
        }
    }

    record Loan(Book book, String member, LocalDate due) {
        long daysLate(LocalDate today) {
            return Math.max(0, today.toEpochDay() - due.toEpochDay());
        }
    }

    private final Map<String, Book> books = new HashMap<>();
    private final List<Loan> loans = new ArrayList<>();

    public void add(Book book) {
        books.putIfAbsent(book.isbn(), book);
    }

    public Optional<Loan> lend(String isbn, String member, LocalDate today) {
        Book book = books.get(isbn);
        if (book == null || isLent(isbn)) {
            return Optional.empty();
        }
        Loan loan = new Loan(book, member, today.plusDays(LOAN_DAYS));
        loans.add(loan);
        return Optional.of(loan);
    }

    private boolean isLent(String isbn) {
        return loans.stream().anyMatch(l -> l.book().isbn().equals(isbn));
    }

    public long fineCents(String member, LocalDate today) {
        long cents = 0;
        for (Loan loan : loans) {
            if (!loan.member().equals(member)) continue;
            cents += Math.round(loan.daysLate(today) * DAILY_FINE * 100);
        }
        return Math.min(cents, MAX_FINE_CENTS);
    }

    public List<String> search(String words) {
        Predicate<Book> match = b -> (b.title() + ' ' + b.author()).toLowerCase()
                .contains(words.toLowerCase());
        return books.values().stream()
                .filter(match)
                .map(Book::title)
                .sorted(Comparator.naturalOrder())
                .collect(Collectors.toList());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(HEADER);
        for (Loan loan : loans) {
            sb.append(String.format("%-20s %-17s %s%n", loan.book().title(), loan.book().author(), loan.due()))
              .append(SEPARATOR);
        }
        return sb.toString().replace("/*", "").replace("*/", "") + QUOTE + DQUOTE;
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) {
        Library lib = new Library();
        lib.add(new Book("978-0134685991", "Effective Java", "Joshua Bloch"));
        lib.add(new Book("978-0596009205", "Head First Java", "Kathy Sierra"));
        LocalDate today = LocalDate.of(2024, 3, 1);
        lib.lend("978-0134685991", "ada", today).ifPresent(System.out::println);
        System.out.println(lib.search("java") + " fine=" + lib.fineCents("ada", today.plusDays(30)));
        System.out.printf("rate %.1f flags %d%n", RATE, FLAGS);
        System.out.println(lib);
        int[] counts = new int[]{1, 2, 3};
        var total = Arrays.stream(counts).map(x -> x * 2 / 1).sum();
        System.out.println(total > 10 ? "many" : "few");
    }
}
