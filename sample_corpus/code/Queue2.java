/**
 * A fixed-capacity FIFO queue of integers backed by a circular array.
 */
class IntQueue
{
  private final int[] data;
  private int head;
  private int tail;
  private int count;

  IntQueue(int capacity) { data = new int[capacity]; }

  /** Adds a value at the back of the queue. */
  void enqueue(int value)
  {
    if (count == data.length)
    {
      throw new IllegalStateException("queue is full");
    }
    data[tail] = value;
    tail = (tail+1) % data.length;
    count++;
  }

  /** Removes and returns the value at the front of the queue. */
  int dequeue()
  {
    if (count == 0)
    {
      throw new IllegalStateException("queue is empty");
    }
    int value = data[head];
    head = (head+1) % data.length;
    count--;
    return value;
  }

  /** Returns the value at the front without removing it. */
  int peek()
  {
    if (count == 0)
    {
      throw new IllegalStateException("queue is empty");
    }
    return data[head];
  }

  boolean isEmpty() { return count == 0; }

  public static void main(String[] args)
  {
    IntQueue q = new IntQueue(4);
    for (int i = 1; i <= 3; i++) { q.enqueue(i*10); }
    while (!q.isEmpty()) { System.out.println(q.dequeue()); }
  }
}
