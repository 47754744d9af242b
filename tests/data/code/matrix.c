#include <stdio.h>
#include <math.h>

#define SIZE 4

static double det3(double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
         - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
         + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

double determinant(double a[SIZE][SIZE]) {
    double total = 0.0;
    for (int col = 0; col < SIZE; col++) {
        double minor[3][3];
        for (int r = 1; r < SIZE; r++) {
            int k = 0;
            for (int c = 0; c < SIZE; c++) {
                if (c == col) continue;
                minor[r - 1][k++] = a[r][c];
            }
        }
        double sign = (col % 2 == 0) ? 1.0 : -1.0;
        total += sign * a[0][col] * det3(minor);
    }
    return total;
}

void transpose(double a[SIZE][SIZE]) {
    int i = 0;
    while (i < SIZE) {
        for (int j = i + 1; j < SIZE; ++j) {
            double tmp = a[i][j];
            a[i][j] = a[j][i];
            a[j][i] = tmp;
        }
        i++;
    }
}

int main(void) {
    double a[SIZE][SIZE] = {{2, 0, 1, 3}, {1, 1, 0, 2}, {0, 4, 1, 1}, {3, 2, 2, 0}};
    printf("det = %.3f\n", determinant(a));
    transpose(a);
    printf("det(T) = %.3f, |det| = %.3f\n", determinant(a), fabs(determinant(a)));
    return 0;
}
