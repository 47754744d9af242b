from collections import deque


def parse_grid(lines):
    grid = [list(line.rstrip()) for line in lines if line.strip()]
    start = goal = None
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == "S":
                start = (r, c)
            elif cell == "G":
                goal = (r, c)
    return grid, start, goal


def neighbours(grid, r, c):
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[nr]) and grid[nr][nc] != "#":
            yield nr, nc


def shortest_path(grid, start, goal):
    previous = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            break
        for step in neighbours(grid, *here):
            if step not in previous:
                previous[step] = here
                queue.append(step)
    if goal not in previous:
        return []
    path, here = [], goal
    while here is not None:
        path.append(here)
        here = previous[here]
    return path[::-1]


def draw(grid, path):
    marked = [row[:] for row in grid]
    for r, c in path[1:-1]:
        marked[r][c] = "."
    return "\n".join("".join(row) for row in marked)


if __name__ == "__main__":
    import sys
    g, s, t = parse_grid(sys.stdin)
    route = shortest_path(g, s, t)
    print(draw(g, route) if route else "no way through")
    print(len(route) - 1 if route else -1, "steps")
