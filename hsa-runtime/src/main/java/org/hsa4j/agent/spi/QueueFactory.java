package org.hsa4j.agent.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Consumer;

import org.hsa4j.memory.Allocation;
import org.hsa4j.queue.PublishObserver;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueAgent;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;

/**
 * How the runtime and device modules make {@link Queue}s, whose constructors are package-private so
 * that applications get queues only from {@code Agent.createQueue} and {@code HsaRuntime}.
 *
 * <p>This package is exported to hsa4j's device modules only, so the factory is as hidden as the
 * constructors. It reaches them through a private lookup into {@code org.hsa4j.queue}, which a class
 * of the same module may take (the package is open to its own module); the handles are made once,
 * and a queue is made rarely. The alternative, a registration hook that {@code Queue} fills in
 * (the JDK's shared secrets), would make {@code queue} depend on this package and so form a cycle.
 */
public final class QueueFactory {
    private static final MethodHandle NEW_QUEUE;
    private static final MethodHandle NEW_SOFT_QUEUE;
    private static final MethodHandle MARK_DESTROYED;
    private static final MethodHandle ALLOCATIONS;
    private static final MethodHandle OBSERVE_PUBLISH;

    static {
        try {
            MethodHandles.Lookup queues = MethodHandles.privateLookupIn(Queue.class, MethodHandles.lookup());
            NEW_QUEUE = queues.findConstructor(Queue.class, MethodType.methodType(void.class, QueueAgent.class,
                    Allocation.class, Allocation.class, int.class, long.class, QueueType.class, int.class, Signal.class,
                    QueueErrorCallback.class, Consumer.class, Consumer.class));
            NEW_SOFT_QUEUE = queues.findStatic(Queue.class, "soft", MethodType.methodType(Queue.class, QueueAgent.class,
                    Allocation.class, Allocation.class, int.class, long.class, QueueType.class, int.class, Signal.class,
                    Consumer.class));
            MARK_DESTROYED = queues.findVirtual(Queue.class, "markDestroyed", MethodType.methodType(void.class));
            ALLOCATIONS = queues.findVirtual(Queue.class, "allocations", MethodType.methodType(Allocation[].class));
            OBSERVE_PUBLISH = queues.findVirtual(Queue.class, "observePublish", MethodType.methodType(void.class,
                    PublishObserver.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private QueueFactory() {
    }

    /**
     * A queue of {@code agent} over a descriptor and a ring already allocated; {@code destroyer} runs on
     * {@code hsa_queue_destroy}, {@code inactivator} on {@code hsa_queue_inactivate}.
     */
    public static Queue create(QueueAgent agent, Allocation descriptorAllocation, Allocation ringAllocation, int size,
                               long id, QueueType type, int features, Signal doorbell, QueueErrorCallback errorCallback,
                               Consumer<Queue> destroyer, Consumer<Queue> inactivator) {
        return called(() -> (Queue) NEW_QUEUE.invokeExact(agent, descriptorAllocation, ringAllocation, size, id, type,
                features, doorbell, errorCallback, destroyer, inactivator));
    }

    /**
     * A soft queue ({@code hsa_soft_queue_create}): no agent consumes it; {@code host} (the runtime's
     * CPU agent) lends its idle strategy and the launch call's pool.
     */
    public static Queue soft(QueueAgent host, Allocation descriptorAllocation, Allocation ringAllocation, int size,
                             long id, QueueType type, int features, Signal doorbell, Consumer<Queue> destroyer) {
        return called(() -> (Queue) NEW_SOFT_QUEUE.invokeExact(host, descriptorAllocation, ringAllocation, size, id,
                type, features, doorbell, destroyer));
    }

    /**
     * Tells {@code observer} of each packet {@code queue}'s launch call is about to publish (its
     * {@link PublishObserver} contract); call it once, before the queue is handed out.
     */
    public static void observePublish(Queue queue, PublishObserver observer) {
        called(() -> {
            OBSERVE_PUBLISH.invokeExact(queue, observer);
            return null;
        });
    }

    /** Marks {@code queue} destroyed: its agent calls it once the ring is drained, before freeing {@link #allocations}. */
    public static void markDestroyed(Queue queue) {
        called(() -> {
            MARK_DESTROYED.invokeExact(queue);
            return null;
        });
    }

    /** The descriptor and ring allocations of {@code queue}, for the agent that frees them. */
    public static Allocation[] allocations(Queue queue) {
        return called(() -> (Allocation[]) ALLOCATIONS.invokeExact(queue));
    }

    /** A constructor or method handle's call, for {@link #called}. */
    private interface Call<T> {
        T call() throws Throwable;
    }

    /** Runs {@code call}, passing runtime exceptions and errors through (an HsaException for a bad argument, say). */
    private static <T> T called(Call<T> call) {
        try {
            return call.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
