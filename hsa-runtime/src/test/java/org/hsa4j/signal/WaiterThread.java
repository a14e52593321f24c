package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * A daemon thread running one blocking call (a signal wait) for a test: the test can wait until the
 * thread is parked on a given object, then collect the call's result or exception. Every wait here
 * is bounded only by the test class's timeout, which fails the test instead of hanging.
 */
final class WaiterThread<T> {
    private final Thread thread;
    private volatile T result;
    private volatile Throwable failure;
    private volatile boolean interruptedAtEnd;

    private WaiterThread(String name, Callable<T> body) {
        thread = new Thread(() -> {
            try {
                result = body.call();
            } catch (Throwable t) {
                failure = t;
            }
            interruptedAtEnd = Thread.currentThread().isInterrupted();
        }, name);
        thread.setDaemon(true);
    }

    /** Starts {@code body} on a new daemon thread. */
    static <T> WaiterThread<T> start(String name, Callable<T> body) {
        WaiterThread<T> w = new WaiterThread<>(name, body);
        w.thread.start();
        return w;
    }

    /** The thread running the call. */
    Thread thread() {
        return thread;
    }

    /** Returns once the thread is parked with {@code blocker} as its park blocker. */
    WaiterThread<T> awaitParkedOn(Object blocker) {
        while (LockSupport.getBlocker(thread) != blocker) {
            if (!thread.isAlive()) {
                throw new AssertionError("the waiter ended before it parked: result " + result, failure);
            }
            Thread.yield();
        }
        return this;
    }

    /** Waits for the call to end and returns its result; rethrows what it threw as an AssertionError. */
    T result() throws InterruptedException {
        thread.join();
        if (failure != null) {
            throw new AssertionError("the waiter threw", failure);
        }
        return result;
    }

    /** Waits for the call to end and returns what it threw, failing when it returned normally. */
    <E extends Throwable> E thrown(Class<E> type) throws InterruptedException {
        thread.join();
        if (failure == null) {
            throw new AssertionError("the waiter returned " + result + " instead of throwing " + type.getSimpleName());
        }
        return assertInstanceOf(type, failure);
    }

    /** True when the thread's interrupt status was set when the call ended. */
    boolean interruptedAtEnd() throws InterruptedException {
        thread.join();
        return interruptedAtEnd;
    }
}
