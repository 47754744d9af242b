// Scheduler.kt -- round-robin scheduling of tasks, for the operating-systems course.
package course.os.lab2

import java.util.ArrayDeque

const val QUANTUM_MS = 20
const val MAX_TASKS = 1_000L
const val LOAD = 0.75f
const val MASK = 0xFF
const val EPS = 1e-6

/** A task with a name and a remaining run time, in milliseconds. */
data class Task(val name: String, var remaining: Int, val priority: Int = 0) {
    init {
        require(remaining >= 0) { "remaining time of '$name' is negative" }
    }

    val done: Boolean get() = remaining == 0
}

sealed class Event {
    data class Ran(val task: Task, val from: Int, val to: Int) : Event()
    data class Finished(val task: Task, val at: Int) : Event()
}

class Scheduler(private val quantum: Int = QUANTUM_MS) {
    private val queue = ArrayDeque<Task>()
    private val log = mutableListOf<Event>()
    var clock = 0
        private set

    fun submit(vararg tasks: Task): Scheduler {
        check(queue.size + tasks.size <= MAX_TASKS) { "too many tasks" }
        tasks.sortedByDescending { it.priority }.forEach(queue::addLast)
        return this
    }

    fun run(): List<Event> {
        while (queue.isNotEmpty()) {
            val task = queue.removeFirst()
            val slice = minOf(quantum, task.remaining)
            log += Event.Ran(task, clock, clock + slice)
            clock += slice
            task.remaining -= slice
            if (task.done) log.add(Event.Finished(task, clock)) else queue.addLast(task)
        }
        return log
    }

    fun report(): String = buildString {
        appendLine("time  event")
        for (event in log) {
            val line = when (event) {
                is Event.Ran -> "${event.from.toString().padStart(4)}  ran ${event.task.name} until ${event.to}"
                is Event.Finished -> "${event.at.toString().padStart(4)}  finished ${event.task.name}"
            }
            appendLine(line)
        }
        append("""
            |total: $clock ms, quantum ${quantum}ms
            |"quoted" and C:\raw\path
        """.trimMargin())
    }
}

fun waiting(events: List<Event>): Map<String, Int> {
    val firstRun = HashMap<String, Int>()
    for (e in events) {
        if (e is Event.Ran) firstRun.putIfAbsent(e.task.name, e.from)
    }
    return firstRun.toSortedMap()
}

fun main(args: Array<String>) {
    val tasks = args.mapIndexed { i, spec ->
        val (name, time) = spec.split(':').let { it[0] to (it.getOrNull(1)?.toIntOrNull() ?: 10) }
        Task(name.ifEmpty { "task$i" }, time, priority = i % 3)
    }.ifEmpty { listOf(Task("a", 50), Task("b", 30), Task("c", 45, priority = 2)) }
    val scheduler = Scheduler().submit(*tasks.toTypedArray())
    val events = scheduler.run()
    println(scheduler.report())
    println("waiting: ${waiting(events)} // not a comment, load $LOAD, mask ${MASK and 0x0F}, eps $EPS")
    val sep = '\''
    val average = events.count { it is Event.Finished } / 2.0
    println("average $average$sep ${if (average > 1) "many" else "few"}")
}
