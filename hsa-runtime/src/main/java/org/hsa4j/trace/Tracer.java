package org.hsa4j.trace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What the runtime reports to a profiler: kernel and agent dispatches (per queue, and per compute
 * unit that ran their workgroups), barrier packets, signal waits that blocked and service calls.
 *
 * <h2>A strategy chosen once</h2>
 * A runtime picks its tracer when it starts ({@link #off} or {@link #recording}) and the hook
 * points call it unconditionally: there is no null check and no flag test on any path. The
 * hooks are per packet (launch, part begin/end, completion), per barrier, per blocking wait and
 * per service call, never per memory access.
 *
 * <p><b>Why off costs nothing.</b> {@link #off}'s {@link #launched} returns the shared
 * {@link DispatchTrace#NONE} after one volatile read ({@code FlightRecorder.isInitialized()}, false
 * unless somebody started JFR; once JFR is up, the dispatch event type's enabled flag too), so a
 * dispatch allocates nothing and reads no clock, and {@code NONE}'s part and completion hooks are
 * empty methods the JIT inlines away (their call sites see one receiver class). Blocking waits and
 * service calls pay the same read. No JFR class is loaded before JFR is up: the first load of an
 * event class costs a JVM hundreds of milliseconds. When a JFR recording enables hsa4j's events
 * ({@code org.hsa4j.*}), the off tracer hands out live traces that commit JFR events only.
 *
 * <h2>Recording</h2>
 * {@link #recording} keeps per-queue and per-kernel statistics ({@link #queueStatistics},
 * {@link #kernelStatistics}) and, given a file, streams a Chrome trace-event JSON timeline
 * ({@link TraceFile}: opened by ui.perfetto.dev or chrome://tracing) that is complete once
 * {@link #close} returns. All timestamps come from one clock, the runtime's
 * ({@code HsaRuntime.timestamp()}: {@code System.nanoTime()} since the runtime started), written in
 * microseconds. Memory is bounded: see {@link TraceFile#CAPACITY}.
 *
 * <p>This package is the runtime's own: layers call it only through {@code HsaRuntime.tracer()}.
 */
public abstract sealed class Tracer permits OffTracer, RecordingTracer {
    final LongSupplier clock;

    Tracer(LongSupplier clock) {
        this.clock = clock;
    }

    /** A tracer that records nothing (JFR events only, while a recording enables them). */
    public static Tracer off(LongSupplier clock) {
        return new OffTracer(clock);
    }

    /**
     * A tracer that keeps statistics and, when {@code file} is not null, writes the trace there.
     *
     * @throws IOException when the file cannot be created
     */
    public static Tracer recording(Path file, LongSupplier clock) throws IOException {
        return new RecordingTracer(file == null ? EventSink.NONE : new TraceFile(file), clock);
    }

    /** True when this tracer keeps statistics (and maybe a trace file). */
    public abstract boolean recording();

    /** The trace file this tracer writes (numbered when another runtime of this JVM was given the same name), if any. */
    public abstract Optional<Path> file();

    /** The clock's time now in nanoseconds (the runtime's timestamp). */
    public final long now() {
        return clock.getAsLong();
    }

    /**
     * A packet was launched: a kernel dispatch ({@code kernel} its name, {@code grid}/{@code workgroup}
     * its sizes) or an agent dispatch ({@code grid} and {@code workgroup} all 1). {@code units} is the
     * number of compute units of the agent.
     */
    public abstract DispatchTrace launched(int agent, String agentName, long queueId, long packetId, String kernel,
                                           long gridX, long gridY, long gridZ, int workgroupX, int workgroupY,
                                           int workgroupZ, int units);

    /**
     * An agent dispatch packet of function {@code type} was launched; it is traced as a one-part
     * dispatch named "agent dispatch type N" (the name is made only when somebody listens).
     */
    public final DispatchTrace agentDispatchLaunched(int agent, String agentName, long queueId, long packetId, int type,
                                                     int units) {
        return listening(Jfr.Kind.DISPATCH) ? launched(agent, agentName, queueId, packetId,
                "agent dispatch type " + type, 1, 1, 1, 1, 1, 1, units) : DispatchTrace.NONE;
    }

    /** True when events of {@code kind} have a listener: always while recording, else while JFR enables them. */
    abstract boolean listening(Jfr.Kind kind);

    /** A barrier packet completed: it was first looked at at {@code begin} and its dependencies were met at {@code end}. */
    public abstract void barrier(int agent, String agentName, long queueId, long packetId, boolean and, long begin, long end);

    /** The calling thread starts a signal wait that did not succeed at its first look. */
    public abstract WaitTrace waitBegins(long signalHandle);

    /** The calling thread starts serving a service call. */
    public abstract CallTrace callBegins();

    /** Statistics of every queue that ran a packet (empty unless {@link #recording()}). */
    public abstract List<QueueStatistics> queueStatistics();

    /** Statistics of queue {@code queueId} (all zero unless {@link #recording()} and it ran a packet). */
    public abstract QueueStatistics queueStatistics(long queueId);

    /** Statistics of every kernel that was dispatched, by name (empty unless {@link #recording()}). */
    public abstract List<KernelStatistics> kernelStatistics();

    /** Writes out and closes the trace file, if any (bounded: at most {@link TraceFile#CLOSE_MILLIS}). */
    public abstract void close();

    /** Called by a live dispatch trace when its dispatch completed. */
    abstract void dispatchDone(LiveDispatch d, long end, boolean failed);

    /** Called by a live wait trace when its wait ended. */
    abstract void waitDone(LiveWait w, long end);

    /** Called by a live call trace when its call was served. */
    abstract void callDone(LiveCall c, long end, String service, String opcode, String status);
}
