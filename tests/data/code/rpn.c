#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny stack of integers with a reverse-polish calculator on top. */
typedef struct {
    int *values;
    size_t length;
    size_t capacity;
} Stack;

static void stack_push(Stack *stack, int value) {
    if (stack->length == stack->capacity) {
        stack->capacity = stack->capacity ? stack->capacity * 2 : 8;
        stack->values = realloc(stack->values, stack->capacity * sizeof(int));
    }
    stack->values[stack->length++] = value;
}

static int stack_pop(Stack *stack) {
    if (stack->length == 0) {
        fprintf(stderr, "stack underflow /* not a comment */\n");
        exit(1);
    }
    return stack->values[--stack->length];
}

int evaluate(const char *expression) {
    Stack stack = {0};
    char buffer[256];
    strncpy(buffer, expression, sizeof(buffer) - 1);
    buffer[sizeof(buffer) - 1] = '\0';
    for (char *token = strtok(buffer, " "); token; token = strtok(NULL, " ")) {
        if (strchr("+-*/", token[0]) && token[1] == '\0') {
            int right = stack_pop(&stack), left = stack_pop(&stack);
            switch (token[0]) {
            case '+': stack_push(&stack, left + right); break;
            case '-': stack_push(&stack, left - right); break;
            case '*': stack_push(&stack, left * right); break;
            default: stack_push(&stack, right ? left / right : 0); break;
            }
        } else {
            stack_push(&stack, atoi(token)); // a number
        }
    }
    int result = stack_pop(&stack);
    free(stack.values);
    return result;
}

int main(int argc, char **argv) {
    for (int arg = 1; arg < argc; arg++) {
        printf("%s = %d\n", argv[arg], evaluate(argv[arg]));
    }
    return 0;
}
