package edu.course.lab3;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Counts words in lines of text and reports the most frequent ones. */
public class WordCounter {
    private final Map<String, Integer> counts = new HashMap<>();
    private int totalWords = 0;

    public void addLine(String line) {
        // split on anything that is not a letter
        for (String word : line.toLowerCase().split("[^a-z]+")) {
            if (word.isEmpty()) {
                continue;
            }
            counts.put(word, counts.getOrDefault(word, 0) + 1);
            totalWords++;
        }
    }

    public List<String> mostFrequent(int limit) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort((left, right) -> right.getValue() - left.getValue());
        List<String> result = new ArrayList<>();
        for (int index = 0; index < limit && index < entries.size(); index++) {
            result.add(entries.get(index).getKey());
        }
        return result;
    }

    public double averageCount() {
        return counts.isEmpty() ? 0.0 : (double) totalWords / counts.size();
    }

    public static void main(String[] args) {
        WordCounter counter = new WordCounter();
        counter.addLine("The quick brown fox jumps over the lazy dog");
        counter.addLine("the dog barks; the fox runs \"away\" // not a comment");
        for (String top : counter.mostFrequent(3)) {
            System.out.println(top + ": " + counter.counts.get(top));
        }
        System.out.printf("average %.2f%n", counter.averageCount());
    }
}
