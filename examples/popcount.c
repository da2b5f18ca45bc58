/* Example: a Kernighan population count, the hot function of a small program.
 *
 *   supercoder optimize examples/popcount.c
 *
 * gcc -O3 keeps the loop; -march=native (or target("popcnt")) turns it into
 * one popcnt instruction. The program reads numbers from stdin and prints the
 * total number of set bits. */
#include <stdio.h>

__attribute__((noinline)) int popcount(unsigned long x) {
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}

int main(void) {
    unsigned long x, total = 0;
    while (scanf("%lu", &x) == 1)
        total += popcount(x);
    printf("%lu\n", total);
    return 0;
}
