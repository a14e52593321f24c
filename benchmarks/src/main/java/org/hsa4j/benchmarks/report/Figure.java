package org.hsa4j.benchmarks.report;

import java.util.List;

/**
 * One figure of docs/PERFORMANCE.md: a measured value, the baseline it is judged against (measured
 * in the same JMH run), and the goal with the issue that set it. {@link #ALL} is the one table
 * that declares every figure; the report generator only renders it.
 *
 * @param section  heading the figure is listed under
 * @param name     what the figure is, for a reader
 * @param value    where the value comes from
 * @param baseline where the baseline comes from, or null when the figure has none
 * @param goal     the goal the value is judged by
 * @param issue    the issue that set the goal
 */
record Figure(String section, String name, Source value, Source baseline, Goal goal, String issue) {

    /**
     * Where a number comes from in JMH's results.
     *
     * @param benchmark {@code Class.method}
     * @param params    {@code name=value} pairs that select the entry ("" for none)
     * @param counter   the secondary metric ({@code @AuxCounters} field), or null for the primary
     */
    record Source(String benchmark, String params, String counter) {
        /** The primary metric of {@code benchmark}. */
        static Source primary(String benchmark, String params) {
            return new Source(benchmark, params, null);
        }

        /** The {@code @AuxCounters} field {@code counter} of {@code benchmark}. */
        static Source counter(String benchmark, String counter) {
            return new Source(benchmark, "", counter);
        }

        /** How the source is written in the report. */
        String label() {
            return benchmark + (params.isEmpty() ? "" : "(" + params + ")") + (counter == null ? "" : ":" + counter);
        }
    }

    /** How a goal compares. */
    enum Kind {
        /** value / baseline <= limit. */
        RATIO_AT_MOST,
        /** value / baseline >= limit (a throughput judged against its baseline). */
        RATIO_AT_LEAST,
        /** value < limit. */
        BELOW,
        /** value <= limit. */
        AT_MOST,
        /** value >= limit. */
        AT_LEAST,
        /** No goal: the figure is shown for information. */
        NONE
    }

    /**
     * A goal: {@code kind} against {@code limit}, written as {@code text} in the report.
     *
     * @param kind  how to compare
     * @param limit the bound
     * @param text  how the goal reads, e.g. "<= 6x raw ping-pong"
     */
    record Goal(Kind kind, double limit, String text) {
        static final Goal NONE = new Goal(Kind.NONE, Double.NaN, "none (information)");

        /** True/false when the goal applies to the numbers, null when it cannot be judged. */
        Boolean met(double value, double baseline) {
            if (Double.isNaN(value)) {
                return null;
            }
            return switch (kind) {
                case RATIO_AT_MOST -> Double.isNaN(baseline) || baseline <= 0 ? null : value / baseline <= limit;
                case RATIO_AT_LEAST -> Double.isNaN(baseline) || baseline <= 0 ? null : value / baseline >= limit;
                case BELOW -> value < limit;
                case AT_MOST -> value <= limit;
                case AT_LEAST -> value >= limit;
                case NONE -> null;
            };
        }
    }

    private static final String ISSUE = "hsa-runtime";
    private static final String AMP = "cppamp-layer";
    private static final String SERVICES = "services";
    private static final String AMP_VECTOR_ADD = "C++AMP layer: vector add, 64M floats";
    private static final String AMP_MATMUL = "C++AMP layer: tiled matrix multiply, 1024x1024, 16x16 tiles";
    private static final String AMP_CHAIN = "C++AMP layer: chain of 1000 empty kernels";
    private static final String SERVICE_CALLS = "Services: GPU-to-CPU calls";
    private static final String DEVICE_HEAP = "Services: device allocator against host malloc over RPC (ms per dispatch)";
    private static final String ROUND_TRIPS = "Round trips";
    private static final String THROUGHPUT = "Batched packets";
    private static final String IDLE = "Idle runtime: CPU and footprint at rest";
    private static final String SIGNALS = "Signal footprint (1,000,000 live signals)";
    private static final String SCALING_VECTOR_ADD =
            "Scaling: vector add through parallelForEach, 2 compute units against 1 (whole curve under \"Scaling curves\")";
    private static final String FIDELITY = "Memory-model fidelity mode";
    private static final String FIDELITY_ISSUE = "memory-model fidelity";
    private static final String SCALING_DISPATCH = "Scaling: empty-kernel dispatch packets/s, 2 compute units against 1";
    private static final String COMPUTE_UNITS = "Compute units: dispatch throughput from 1 to 16 units (plot under \"Scaling curves\")";
    private static final String MANY_CORES = "many compute units";

    private static final Source RAW_PING_PONG = Source.primary("RawPingPongBenchmark.roundTrip", "");
    private static final Source SUBMIT_GET = Source.primary("ExecutorBaselineBenchmark.submitGet", "");
    private static final Source EXECUTOR_BATCH = Source.primary("ExecutorBaselineBenchmark.executeBatch", "");

    /** Every figure of the report, in order. */
    static final List<Figure> ALL = List.of(
            new Figure(ROUND_TRIPS, "Empty-kernel dispatch round trip, ACTIVE wait",
                    Source.primary("DispatchRoundTripBenchmark.roundTrip", "waitState=ACTIVE"), RAW_PING_PONG,
                    new Goal(Kind.RATIO_AT_MOST, 6, "<= 6x raw ping-pong"), ISSUE),
            new Figure(ROUND_TRIPS, "Empty-kernel dispatch round trip, BLOCKED wait",
                    Source.primary("DispatchRoundTripBenchmark.roundTrip", "waitState=BLOCKED"), SUBMIT_GET,
                    new Goal(Kind.RATIO_AT_MOST, 1, "<= 1x ExecutorService submit().get()"), ISSUE),
            new Figure(ROUND_TRIPS, "Host-to-kernel signal ping-pong (persistent kernel, ACTIVE waits)",
                    Source.primary("SignalPingPongBenchmark.roundTrip", ""), RAW_PING_PONG,
                    new Goal(Kind.RATIO_AT_MOST, 2, "<= 2x raw ping-pong"), ISSUE),
            new Figure(ROUND_TRIPS, "CompletableFuture.runAsync(noop, executor).join() (a second baseline)",
                    Source.primary("ExecutorBaselineBenchmark.runAsyncJoin", ""), SUBMIT_GET, Goal.NONE, ISSUE),
            new Figure(ROUND_TRIPS, "LMAX Disruptor 4 1P-1C ping-pong, two rings, bounded yielding waits (a second floor; "
                    + "DESIGN's published 1P-1C ~160M ops/s is one-way throughput, not a round trip)",
                    Source.primary("DisruptorPingPongBenchmark.roundTrip", ""), RAW_PING_PONG, Goal.NONE, ISSUE),
            new Figure(THROUGHPUT, "Barrier-AND packets, no dependencies, 256 per doorbell",
                    Source.primary("BatchedPacketsBenchmark.batch", "packetType=BARRIER_AND"), EXECUTOR_BATCH,
                    new Goal(Kind.AT_LEAST, 5e6, ">= 5,000,000 packets/s"), ISSUE),
            new Figure(THROUGHPUT, "Empty-kernel dispatch packets, 256 per doorbell",
                    Source.primary("BatchedPacketsBenchmark.batch", "packetType=KERNEL_DISPATCH"), EXECUTOR_BATCH,
                    new Goal(Kind.AT_LEAST, 5e6, ">= 5,000,000 packets/s"), ISSUE),
            new Figure(IDLE, "CPU of the whole process while idle, % of one core",
                    idle("runtime", "processCpuPercent"),
                    idle("threadPool", "processCpuPercent"),
                    new Goal(Kind.BELOW, 2, "< 2% of one core"), ISSUE),
            new Figure(IDLE, "CPU of the runtime's own threads while idle, % of one core",
                    idle("runtime", "workerCpuPercent"),
                    idle("threadPool", "workerCpuPercent"),
                    new Goal(Kind.BELOW, 2, "< 2% of one core"), ISSUE),
            new Figure(IDLE, "Off-heap bytes held at rest (1 GPU agent, 1 queue of 1024 packets)",
                    idle("runtime", "offHeapBytes"),
                    idle("threadPool", "offHeapBytes"), Goal.NONE, ISSUE),
            new Figure(IDLE, "Heap bytes retained at rest (delta after GC)",
                    idle("runtime", "heapBytes"),
                    idle("threadPool", "heapBytes"), Goal.NONE, ISSUE),
            new Figure(IDLE, "Threads started",
                    idle("runtime", "threads"),
                    idle("threadPool", "threads"), Goal.NONE, ISSUE),
            new Figure(SIGNALS, "Off-heap bytes per signal, in use in the signal pool (the signal's own slot)",
                    Source.counter("SignalFootprintBenchmark.signals", "poolBytesPerSignal"),
                    Source.counter("SignalFootprintBenchmark.atomicLongs", "poolBytesPerSignal"),
                    new Goal(Kind.AT_MOST, 64, "<= 64 B"), ISSUE),
            new Figure(SIGNALS, "Off-heap bytes per signal, held by the runtime (reservedBytes: whole 4 MiB chunks, "
                    + "so it includes the rounding of the last chunk and the runtime's own first chunk)",
                    Source.counter("SignalFootprintBenchmark.signals", "offHeapBytesPerSignal"),
                    Source.counter("SignalFootprintBenchmark.atomicLongs", "offHeapBytesPerSignal"), Goal.NONE, ISSUE),
            new Figure(SIGNALS, "Heap bytes per signal",
                    Source.counter("SignalFootprintBenchmark.signals", "heapBytesPerSignal"),
                    Source.counter("SignalFootprintBenchmark.atomicLongs", "heapBytesPerSignal"), Goal.NONE, ISSUE),
            new Figure(SIGNALS, "Threads created for 1,000,000 signals",
                    Source.counter("SignalFootprintBenchmark.signals", "threadsCreated"),
                    Source.counter("SignalFootprintBenchmark.atomicLongs", "threadsCreated"),
                    new Goal(Kind.AT_MOST, 0, "0 (no thread per signal)"), ISSUE),
            new Figure(AMP_VECTOR_ADD, "parallelForEach against one sequential pass (memory-bandwidth floor)",
                    Source.primary("VectorAddBenchmark.ampParallelForEach", ""),
                    Source.primary("VectorAddBenchmark.sequentialSegmentPass", ""),
                    new Goal(Kind.RATIO_AT_MOST, 1 / 0.85, ">= 85% of the floor (time <= 1.18x)"), AMP),
            new Figure(AMP_VECTOR_ADD, "parallelForEach against IntStream.range().parallel()",
                    Source.primary("VectorAddBenchmark.ampParallelForEach", ""),
                    Source.primary("VectorAddBenchmark.intStreamParallel", ""),
                    new Goal(Kind.RATIO_AT_MOST, 1, "no slower (<= 1x)"), AMP),
            new Figure(AMP_VECTOR_ADD, "parallelForEach against Aparapi 3.0.2 JTP",
                    Source.primary("VectorAddBenchmark.ampParallelForEach", ""),
                    Source.primary("VectorAddBenchmark.aparapiJtp", ""),
                    new Goal(Kind.RATIO_AT_MOST, 0.1, ">= 10x faster (<= 0.1x)"), AMP),
            new Figure(AMP_MATMUL, "tiled (tile_static, two barriers per step) against untiled parallelForEach",
                    Source.primary("TiledMatmulBenchmark.ampTiled", ""),
                    Source.primary("TiledMatmulBenchmark.ampUntiled", ""),
                    new Goal(Kind.RATIO_AT_MOST, 2, "within 2x (<= 2x)"), AMP),
            new Figure(AMP_MATMUL, "Aparapi JTP with localBarrier (at aparapiSide, default 256: scale by (1024/side)^3)",
                    Source.primary("TiledMatmulBenchmark.aparapiJtpLocalBarrier", ""),
                    Source.primary("TiledMatmulBenchmark.ampTiled", ""), Goal.NONE, AMP),
            new Figure(AMP_CHAIN, "dependency form (barrier packets, no host round trip), us per kernel",
                    Source.primary("DependencyChainBenchmark.dependencyForm", ""),
                    Source.primary("DependencyChainBenchmark.hostRoundTrip", ""),
                    new Goal(Kind.AT_MOST, 2, "<= 2 us per kernel"), AMP),
            new Figure(SERVICE_CALLS, "no-op service call from a kernel, ACTIVE waits",
                    Source.primary("ServiceRoundTripBenchmark.rpcNop", ""),
                    Source.primary("ServiceRoundTripBenchmark.rawPingPong", ""),
                    new Goal(Kind.RATIO_AT_MOST, 3, "<= 3x raw ping-pong"), SERVICES),
            new Figure(SERVICE_CALLS, "the same call through an AGENT_DISPATCH packet",
                    Source.primary("ServiceRoundTripBenchmark.agentDispatchNop", ""),
                    Source.primary("ServiceRoundTripBenchmark.rawPingPong", ""), Goal.NONE, SERVICES),
            new Figure(SERVICE_CALLS, "throughput, 1 caller (calls/s)",
                    Source.primary("ServiceThroughputBenchmark.calls", "callers=1"), null, Goal.NONE, SERVICES),
            new Figure(SERVICE_CALLS, "throughput, 64 callers (calls/s)",
                    Source.primary("ServiceThroughputBenchmark.calls", "callers=64"), null, Goal.NONE, SERVICES),
            new Figure(SERVICE_CALLS, "throughput, 4096 callers (calls/s)",
                    Source.primary("ServiceThroughputBenchmark.calls", "callers=4096"), null, Goal.NONE, SERVICES),
            new Figure(SERVICE_CALLS, "idle services, % of one core",
                    Source.counter("IdleServicesBenchmark.services", "serviceCpuPercent"),
                    Source.counter("IdleServicesBenchmark.runtimeOnly", "serviceCpuPercent"),
                    new Goal(Kind.BELOW, 1, "< 1% of one core"), SERVICES),
            heap("256", "false"), heap("1024", "false"), heap("4096", "false"), heap("16384", "false"),
            new Figure(DEVICE_HEAP, "65536 work-items, malloc only",
                    Source.primary("DeviceAllocatorBenchmark.deviceHeap", "workItems=65536,free=false"),
                    Source.primary("DeviceAllocatorBenchmark.hostMalloc", "workItems=65536,free=false"),
                    new Goal(Kind.RATIO_AT_MOST, 0.1, ">= 10x faster (<= 0.1x)"), SERVICES),
            heap("256", "true"), heap("1024", "true"), heap("4096", "true"), heap("16384", "true"),
            new Figure(DEVICE_HEAP, "65536 work-items, malloc and free",
                    Source.primary("DeviceAllocatorBenchmark.deviceHeap", "workItems=65536,free=true"),
                    Source.primary("DeviceAllocatorBenchmark.hostMalloc", "workItems=65536,free=true"),
                    new Goal(Kind.RATIO_AT_MOST, 0.1, ">= 10x faster (<= 0.1x)"), SERVICES),
            new Figure(FIDELITY, "vector add, 1M floats through FloatViews, fidelity on / off",
                    Source.primary("FidelityBenchmark.vectorAdd", "fidelity=on"),
                    Source.primary("FidelityBenchmark.vectorAdd", "fidelity=off"),
                    new Goal(Kind.RATIO_AT_MOST, 20, "<= 20x"), FIDELITY_ISSUE),
            new Figure(FIDELITY, "dispatch round trip, fidelity off (mode compiled in), ACTIVE wait",
                    Source.primary("FidelityBenchmark.roundTrip", "fidelity=off"),
                    Source.primary("DispatchRoundTripBenchmark.roundTrip", "waitState=ACTIVE"),
                    new Goal(Kind.RATIO_AT_MOST, 1.1, "<= 1.1x the round-trip figure (costs nothing)"), FIDELITY_ISSUE),
            scaling("1024", "1K"), scaling("65536", "64K"), scaling("1048576", "1M"), scaling("16777216", "16M"),
            scaling("67108864", "64M"),
            new Figure(SCALING_DISPATCH, "256 empty 1-work-item dispatches per doorbell (packets/s; ratio > 1 is faster)",
                    Source.primary("DispatchScalingBenchmark.batch", "computeUnits=2"),
                    Source.primary("DispatchScalingBenchmark.batch", "computeUnits=1"), Goal.NONE, ISSUE),
            units("2"), units("4"), units("8"), units("16"),
            executorBatch("1"), executorBatch("2"), executorBatch("4"), executorBatch("8"), executorBatch("16"),
            new Figure(COMPUTE_UNITS, "64 workgroups of ~20 us each, 2 compute units against 1 (dispatches/s)",
                    Source.primary("DispatchScalingBenchmark.realWork", "computeUnits=2"),
                    Source.primary("DispatchScalingBenchmark.realWork", "computeUnits=1"),
                    new Goal(Kind.RATIO_AT_LEAST, 1.8, ">= 1.8x one unit"), MANY_CORES),
            new Figure(COMPUTE_UNITS, "dispatch round trip under two busy background threads, BLOCKED wait (median)",
                    Source.primary("ScarceCoresBenchmark.dispatchRoundTrip", "busyThreads=2"),
                    Source.primary("ScarceCoresBenchmark.executorSubmitGet", "busyThreads=2"),
                    new Goal(Kind.RATIO_AT_MOST, 1, "<= 1x submit().get() under the same load"), MANY_CORES),
            new Figure(COMPUTE_UNITS, "aggregate packets/s of 8 queues fed by 8 host threads against 1 queue",
                    new Source("MultiQueueBenchmark.batch", "queues=8", "aggregatePackets"),
                    new Source("MultiQueueBenchmark.batch", "queues=1", "aggregatePackets"),
                    new Goal(Kind.RATIO_AT_LEAST, 1, ">= 1x one queue"), MANY_CORES),
            new Figure(COMPUTE_UNITS, "idle runtime with 16 compute units configured, CPU of the whole process, % of one core",
                    new Source("IdleCostBenchmark.runtime", "computeUnits=16", "processCpuPercent"),
                    new Source("IdleCostBenchmark.threadPool", "computeUnits=16", "processCpuPercent"),
                    new Goal(Kind.BELOW, 0.5, "< 0.5% of one core"), MANY_CORES),
            new Figure(COMPUTE_UNITS, "sync_2way written with default settings, time per turn, against one compute unit",
                    Source.primary("SyncTwoWayBenchmark.turns", "computeUnits=0"),
                    Source.primary("SyncTwoWayBenchmark.turns", "computeUnits=1"),
                    new Goal(Kind.RATIO_AT_MOST, 2, "<= 2x one unit's turn"), MANY_CORES),
            new Figure(COMPUTE_UNITS, "deferred service call: pread of 64 bytes from a kernel, against the same pread from a Java thread",
                    Source.primary("PreadCallBenchmark.kernel", ""),
                    Source.primary("PreadCallBenchmark.javaThread", ""),
                    new Goal(Kind.RATIO_AT_MOST, 3, "<= 3x the Java thread's"), MANY_CORES));

    /** An idle-cost counter of the default runtime (computeUnits=0: one unit per core). */
    private static Source idle(String side, String counter) {
        return new Source("IdleCostBenchmark." + side, "computeUnits=0", counter);
    }

    /** Issue 20's flat curve: 256 empty dispatches per doorbell with {@code units} compute units against one. */
    private static Figure units(String units) {
        return new Figure(COMPUTE_UNITS, units + " compute units against 1 (packets/s; ratio > 1 is faster)",
                Source.primary("DispatchScalingBenchmark.batch", "computeUnits=" + units),
                Source.primary("DispatchScalingBenchmark.batch", "computeUnits=1"),
                new Goal(Kind.RATIO_AT_LEAST, 0.9, ">= 0.9x one unit"), MANY_CORES);
    }

    /** Issue 20's other bar: the same batch with {@code units} compute units against ExecutorService executeBatch. */
    private static Figure executorBatch(String units) {
        return new Figure(COMPUTE_UNITS, units + (units.equals("1") ? " compute unit" : " compute units")
                        + " against executeBatch (packets/s against tasks/s)",
                Source.primary("DispatchScalingBenchmark.batch", "computeUnits=" + units), EXECUTOR_BATCH,
                new Goal(Kind.RATIO_AT_LEAST, 1.5, ">= 1.5x executeBatch"), MANY_CORES);
    }

    /** A vector-add scaling row shown for information: time per op with 2 compute units against 1. */
    private static Figure scaling(String elements, String label) {
        return new Figure(SCALING_VECTOR_ADD, label + " floats (time per op; ratio < 1 is faster)",
                Source.primary("VectorAddScalingBenchmark.ampParallelForEach", "computeUnits=2,elements=" + elements),
                Source.primary("VectorAddScalingBenchmark.ampParallelForEach", "computeUnits=1,elements=" + elements),
                Goal.NONE, AMP);
    }

    /** A device-allocator row shown for information (the goal is set at 64k work-items). */
    private static Figure heap(String workItems, String free) {
        String params = "workItems=" + workItems + ",free=" + free;
        return new Figure(DEVICE_HEAP, workItems + " work-items, " + (free.equals("true") ? "malloc and free" : "malloc only"),
                Source.primary("DeviceAllocatorBenchmark.deviceHeap", params),
                Source.primary("DeviceAllocatorBenchmark.hostMalloc", params), Goal.NONE, SERVICES);
    }
}
