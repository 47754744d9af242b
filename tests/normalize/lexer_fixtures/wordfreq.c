/*
 * wordfreq.c -- count the words of a text file with a chained hash table.
 *
 * Build: cc -O2 -Wall -o wordfreq wordfreq.c
 * "Words" are runs of letters and apostrophes (so "don't" is one word).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wordfreq.h"

#define TABLE_SIZE 4096u
#define MAX_WORD 64
#define DIE(msg) do { \
        fprintf(stderr, "wordfreq: %s\n", (msg)); \
        exit(EXIT_FAILURE); \
    } while (0)
#define VERSION "1.2 \"stable\""

typedef struct entry {
    char *word;
    unsigned long count;
    struct entry *next;
} entry_t;

static entry_t *table[TABLE_SIZE];
static const double LOAD_WARN = 0.75;
static const float RATIO = 1.5e-3f;
static const unsigned long BIG = 10UL;
static const int MASK = 0x1F;

/* FNV-1a: 'offset' and 'prime' are the 32-bit constants */
static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h % TABLE_SIZE;
}

static char *copy_word(const char *w, size_t n)
{
    char *p = malloc(n + 1);
    if (p == NULL)
        DIE("out of memory");
    memcpy(p, w, n);
    p[n] = '\0';
    return p;
}

static void add_word(const char *w, size_t n)
{
    unsigned h = hash(w);
    for (entry_t *e = table[h]; e != NULL; e = e->next) {
        if (strcmp(e->word, w) == 0) {
            e->count++;
            return;
        }
    }
    entry_t *e = malloc(sizeof *e);
    if (!e) DIE("out of memory");
    e->word = copy_word(w, n);
    e->count = 1;
    e->next = table[h];
    table[h] = e;
}

static int is_word_char(int c)
{
    return isalpha(c) || c == '\'' || c == '-';
}

static int compare(const void *a, const void *b)
{
    const entry_t *x = *(const entry_t *const *)a;
    const entry_t *y = *(const entry_t *const *)b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
    char word[MAX_WORD + 1];
    size_t len = 0, distinct = 0;
    int c;
    FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;

    if (in == NULL) {
        perror(argv[1]);
        return 1;
    }
    while ((c = fgetc(in)) != EOF) {
        if (is_word_char(c) && len < MAX_WORD) {
            word[len++] = (char)tolower(c);
        } else if (len > 0) {
            word[len] = '\0';
            add_word(word, len);
            len = 0;
        }
    }
    entry_t **all = calloc(TABLE_SIZE * 4, sizeof *all);
    for (size_t i = 0; i < TABLE_SIZE; i++)
        for (entry_t *e = table[i]; e; e = e->next)
            all[distinct++] = e;
    qsort(all, distinct, sizeof *all, compare);
    printf("%-20s %s\n", "word", "count");   /* header: "word" 'count' */
    for (size_t i = 0; i < distinct && i < 20; i++)
        printf("%-20s %lu\n", all[i]->word, all[i]->count);
    printf("version " VERSION ", load %.2f (warn at %.2f), tab\t" "done\n",
           (double)distinct / TABLE_SIZE, LOAD_WARN);
    if (RATIO > 0 && BIG & MASK)
        puts("// not a comment, /* nor this */");
    free(all);
    return in == stdin ? 0 : fclose(in);
}
