package org.hsa4j.trace;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A Chrome trace-event JSON file ({@code {"traceEvents":[...],"otherData":{...}}}, the format
 * ui.perfetto.dev and chrome://tracing open) streamed by one daemon writer thread.
 *
 * <p>Threads that trace only {@code offer} their event to a bounded queue of {@link #CAPACITY}
 * events, so they never block and memory stays bounded; when the writer falls that far behind,
 * further events are dropped and counted, and the count is written as {@code
 * otherData.droppedEvents}. The writer names each process (agent, or "host") and thread (compute
 * unit, queue track, host thread) with a metadata event the first time it sees it. {@link #close}
 * hands the writer an end marker and joins it for at most {@link #CLOSE_MILLIS}; the writer then
 * closes the array and the object, so the file is valid JSON once close returns.
 */
final class TraceFile implements EventSink, Runnable {
    /** Most events waiting for the writer (about 100 bytes each): past it events are dropped and counted. */
    static final int CAPACITY = 1 << 16;
    /** How long the writer sleeps when it found nothing to write (at 65,536 events a sleep, 6.5 M events/s drain). */
    static final long IDLE_NANOS = 10_000_000;
    /** Longest {@link #close} waits for the writer to finish the file. */
    static final long CLOSE_MILLIS = 10_000;
    private static final System.Logger LOG = System.getLogger(TraceFile.class.getName());
    private static final TraceEvent END = new TraceEvent('E', "", "", 0, "", 0, "", 0, 0, null);

    /** How many runtimes of this JVM were given each trace file name (absolute, normalized). */
    private static final ConcurrentHashMap<Path, AtomicInteger> USES = new ConcurrentHashMap<>();

    private final Path path;
    private final Writer out;
    private final ArrayBlockingQueue<TraceEvent> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread writer;
    private volatile boolean closing;
    /** Writer thread only: processes and threads already named, events written, the first write error. */
    private final Set<Integer> namedProcesses = new HashSet<>();
    private final Set<Long> namedThreads = new HashSet<>();
    private final StringBuilder line = new StringBuilder(256);
    private long written;
    private IOException failure;

    TraceFile(Path asked) throws IOException {
        this.path = numbered(asked);
        this.out = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
        out.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
        writer = Thread.ofPlatform().daemon().name("hsa4j-trace-writer").unstarted(this);
        writer.start();
    }

    /**
     * The file the {@code n}th runtime of this JVM given {@code asked} writes: {@code asked} itself for the
     * first, {@code name-n.ext} for later ones, so runtimes one after another (each example of
     * {@code ./hsa4j run all}) or at once (tests) never overwrite or interleave each other's files.
     */
    static Path numbered(Path asked) {
        int n = USES.computeIfAbsent(asked.toAbsolutePath().normalize(), k -> new AtomicInteger()).incrementAndGet();
        if (n == 1) {
            return asked;
        }
        String name = asked.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String numbered = dot > 0 ? name.substring(0, dot) + "-" + n + name.substring(dot) : name + "-" + n;
        return asked.resolveSibling(numbered);
    }

    /** The file written. */
    Path path() {
        return path;
    }

    @Override
    public void add(TraceEvent e) {
        if (closing || !queue.offer(e)) {
            dropped.incrementAndGet();
        }
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            if (!queue.offer(END, CLOSE_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "trace " + path + ": the writer took no end marker in "
                        + CLOSE_MILLIS + " ms; the file may be incomplete");
                return;
            }
            LockSupport.unpark(writer);
            writer.join(CLOSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            LOG.log(System.Logger.Level.WARNING, "trace " + path + ": the writer did not finish in " + CLOSE_MILLIS
                    + " ms; the file may be incomplete");
        } else if (failure != null) {
            LOG.log(System.Logger.Level.WARNING, "trace " + path + " could not be written: " + failure);
        }
    }

    /**
     * Drains the queue in batches and sleeps {@link #IDLE_NANOS} when it is empty. The writer never
     * waits on the queue's condition, so a tracing thread's {@code offer} never has a thread to wake:
     * waking the writer per event tripled a dispatch round trip on a 2-core machine.
     */
    @Override
    public void run() {
        List<TraceEvent> batch = new ArrayList<>(1024);
        boolean unflushed = false;
        while (true) {
            queue.drainTo(batch, 1024);
            if (batch.isEmpty()) {
                if (unflushed) {
                    write(() -> out.flush());
                    unflushed = false;
                }
                LockSupport.parkNanos(this, IDLE_NANOS);
                continue;
            }
            for (TraceEvent e : batch) {
                if (e == END) {
                    finish();
                    return;
                }
                event(e);
            }
            batch.clear();
            unflushed = true;
        }
    }

    private interface Io {
        void run() throws IOException;
    }

    private void write(Io io) {
        if (failure == null) {
            try {
                io.run();
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    private void finish() {
        write(() -> {
            out.write("\n],\"otherData\":{\"producer\":\"hsa4j\",\"clock\":\"HsaRuntime.timestamp(), microseconds\","
                    + "\"bufferedEventCap\":" + CAPACITY + ",\"droppedEvents\":" + dropped.get()
                    + ",\"events\":" + written + "}}\n");
            out.close();
        });
    }

    private void event(TraceEvent e) {
        if (namedProcesses.add(e.pid())) {
            metadata("process_name", e.pid(), 0, e.process());
        }
        if (namedThreads.add(((long) e.pid() << 40) ^ e.tid())) {
            metadata("thread_name", e.pid(), e.tid(), e.thread());
        }
        StringBuilder b = begin();
        b.append("\"ph\":\"").append(e.ph()).append("\",\"cat\":");
        string(b, e.cat());
        b.append(",\"name\":");
        string(b, e.name());
        b.append(",\"pid\":").append(e.pid()).append(",\"tid\":").append(e.tid()).append(",\"ts\":");
        micros(b, e.ts());
        if (e.ph() == 'X') {
            b.append(",\"dur\":");
            micros(b, e.dur());
        }
        if (e.id() != null) {
            b.append(",\"id\":");
            string(b, e.id());
        }
        Object[] args = e.args();
        if (args.length > 0) {
            b.append(",\"args\":{");
            for (int i = 0; i + 1 < args.length; i += 2) {
                if (i > 0) {
                    b.append(',');
                }
                string(b, (String) args[i]);
                b.append(':');
                Object v = args[i + 1];
                if (v instanceof Number || v instanceof Boolean) {
                    b.append(v);
                } else {
                    string(b, String.valueOf(v));
                }
            }
            b.append('}');
        }
        end(b);
    }

    private void metadata(String kind, int pid, long tid, String name) {
        StringBuilder b = begin();
        b.append("\"ph\":\"M\",\"name\":\"").append(kind).append("\",\"pid\":").append(pid).append(",\"tid\":")
                .append(tid).append(",\"args\":{\"name\":");
        string(b, name);
        b.append('}');
        end(b);
    }

    private StringBuilder begin() {
        line.setLength(0);
        line.append(written == 0 ? "\n{" : ",\n{");
        return line;
    }

    private void end(StringBuilder b) {
        b.append('}');
        written++;
        write(() -> out.append(b));
    }

    /** Nanoseconds as microseconds with three decimals. */
    static void micros(StringBuilder b, long nanos) {
        if (nanos < 0) {
            b.append('-');
            nanos = -nanos;
        }
        long frac = nanos % 1000;
        b.append(nanos / 1000).append('.').append(frac < 100 ? frac < 10 ? "00" : "0" : "").append(frac);
    }

    /** {@code s} as a JSON string literal. */
    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
