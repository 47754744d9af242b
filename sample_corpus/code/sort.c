#include <stdio.h>

/* Sort an array of doubles in ascending order using insertion sort. */
static void insertion_sort(double *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double key = a[i];
        size_t j = i;
        /* Shift larger elements one slot to the right. */
        while (j > 0 && a[j - 1] > key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = key;
    }
}

static void print_array(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%s%g", i ? " " : "", a[i]);
    putchar('\n');
}

int main(void)
{
    double values[] = {3.5, -1.0, 7.25, 0.0, 2.5, 2.5, -4.75};
    size_t n = sizeof values / sizeof values[0];

    print_array(values, n);
    insertion_sort(values, n);
    print_array(values, n);
    return 0;
}
