package org.hsa4j.queue;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.Svm;
import org.hsa4j.signal.Signal;
import org.hsa4j.trace.Tracer;

/**
 * The agent that consumes a {@link Queue}, as the queue sees it: what the queue borrows from its
 * agent (the launch call's signals and kernarg memory, the idle strategy, the tracer) and tells it
 * (new work). {@code org.hsa4j.agent.Agent} implements it; the interface lives here so that queue
 * does not depend on agent, which depends on queue (an agent creates and consumes queues).
 * A user holding a queue gets the full agent with {@code queue.agent() instanceof Agent a}.
 */
public interface QueueAgent {
    /** A signal of the agent's runtime with {@code initialValue}, for the launch call's pool. */
    Signal createSignal(long initialValue);

    /** A fine-grained pool every agent reaches, where the launch call keeps its kernel arguments. */
    MemoryPool kernargPool();

    /** The agent's view of SVM. */
    Svm svm();

    /** The runtime's idle strategy, which the queue's waits derive from. */
    IdleStrategy idleStrategy();

    /** The tracer the agent's packets report to. */
    Tracer tracer();

    /** True once the runtime shut the agent down. */
    boolean isShutDown();

    /** Wakes the agent's packet processor: something may be ready to launch. */
    void notifyWork();
}
