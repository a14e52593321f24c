package org.hsa4j.services;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.services.rpc.RpcCall;

/** Callers on threads of their own, for tests of calls that may never return: every wait is bounded. */
public final class Callers {
    /** The bound of every wait here: generous, so a loaded machine never trips it, yet a hang fails the test. */
    public static final long WAIT_SECONDS = 30;

    private Callers() {
    }

    /** A call running on a daemon thread of its own. */
    public static final class Caller<T> {
        private final FutureTask<T> task;
        private final Thread thread;

        private Caller(Callable<T> body, String name) {
            task = new FutureTask<>(body);
            thread = new Thread(task, name);
            thread.setDaemon(true);
            thread.start();
        }

        /** The caller's thread. */
        public Thread thread() {
            return thread;
        }

        /** The call's result; fails the test when it does not come within {@link #WAIT_SECONDS}. */
        public T result() {
            try {
                return task.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return fail(thread.getName() + " did not return within " + WAIT_SECONDS + " s (hung)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail("interrupted");
            } catch (ExecutionException e) {
                return fail(thread.getName() + " threw", e.getCause());
            }
        }

        /** Waits until the caller parks inside an RPC call (it sent its packet and waits for the reply). */
        public Caller<T> awaitWaitingForReply() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!(LockSupport.getBlocker(thread) instanceof RpcCall)) {
                if (task.isDone()) {
                    fail(thread.getName() + " returned before it waited for a reply");
                }
                if (System.nanoTime() > deadline) {
                    fail(thread.getName() + " never waited for a reply");
                }
                LockSupport.parkNanos(100_000);
            }
            return this;
        }
    }

    /** Starts {@code body} on a thread named {@code name}. */
    public static <T> Caller<T> start(String name, Callable<T> body) {
        return new Caller<>(body, name);
    }
}
