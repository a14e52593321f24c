package org.hsa4j.benchmarks;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;

/** The one-packet submission the benchmarks share: the queue's launch call with the benchmark's own kernarg and signal. */
public final class Dispatches {
    private Dispatches() {
    }

    /**
     * Submits a 1-D dispatch of {@code kernelObject} on {@code queue} with the launch call
     * ({@code Queue.launch}), system-scope fences and no barrier bit, passing {@code kernarg} and
     * {@code completion} (armed by the caller, who waits on it).
     */
    public static DispatchCompletion submitOne(Queue queue, long kernelObject, int workgroup, int grid, long kernarg,
                                               Signal completion) {
        return queue.launch(kernelObject).grid(grid).workgroup(workgroup).kernarg(kernarg).completion(completion)
                .dispatch();
    }
}
