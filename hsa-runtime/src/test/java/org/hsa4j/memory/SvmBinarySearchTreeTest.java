package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pointer-linked binary search tree in SVM, built on the host and then grown concurrently by a
 * kernel's work-items and by host threads. Nodes come from one allocation through an atomic bump
 * counter; a new node is linked under its parent's lock (a system-scope compare-and-swap) with a
 * release store, and walkers follow child links with acquire loads, so both sides use the very
 * same addresses and protocol.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SvmBinarySearchTreeTest {
    /** Layout of a tree node in SVM: the one place that knows its offsets. */
    static final class Node {
        /** long: the key. */
        static final long KEY = 0;
        /** pointer: the subtree of smaller keys, 0 when empty. */
        static final long LEFT = 8;
        /** pointer: the subtree of larger keys, 0 when empty. */
        static final long RIGHT = 16;
        /** int: 0 free, 1 held while a child link is being set. */
        static final long LOCK = 24;
        /** Bytes per node (a multiple of 8, so every field stays naturally aligned). */
        static final long SIZE = 32;

        private Node() {
        }
    }

    private static final int INITIAL_KEYS = 1_000;
    private static final int KERNEL_KEYS = 8_192;
    private static final int HOST_THREADS = 2;
    private static final int KEYS_PER_HOST_THREAD = 4_096;
    private static final int TOTAL = INITIAL_KEYS + KERNEL_KEYS + HOST_THREADS * KEYS_PER_HOST_THREAD;

    /** The node store: {@code capacity} nodes from one allocation, handed out by an SVM bump counter. */
    record Arena(long nodes, long counter, int capacity) {
        /** Takes a fresh node and writes its key and empty links (plain stores: nobody sees it yet). */
        long newNode(Svm svm, long key) {
            int index = svm.atomicAddInt(counter, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            if (index >= capacity) {
                throw new IllegalStateException("node arena of " + capacity + " nodes is exhausted");
            }
            long node = nodes + index * Node.SIZE;
            svm.setLong(node + Node.KEY, key);
            svm.setAddress(node + Node.LEFT, 0);
            svm.setAddress(node + Node.RIGHT, 0);
            svm.setInt(node + Node.LOCK, 0);
            return node;
        }
    }

    /** Inserts {@code key} (not yet in the tree) under {@code root}; the same code runs on host and in kernels. */
    static void insert(Svm svm, Arena arena, long root, long key) {
        long node = arena.newNode(svm, key);
        long current = root;
        while (true) {
            long link = current + (key < svm.getLong(current + Node.KEY) ? Node.LEFT : Node.RIGHT);
            long child = svm.atomicLoadLong(link, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            if (child == 0) {
                lock(svm, current);
                try {
                    child = svm.atomicLoadLong(link, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
                    if (child == 0) {
                        svm.atomicStoreLong(link, node, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                        return;
                    }
                } finally {
                    svm.atomicStoreInt(current + Node.LOCK, 0, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                }
            }
            current = child;
        }
    }

    private static void lock(Svm svm, long node) {
        int spins = 0;
        while (svm.atomicCompareExchangeInt(node + Node.LOCK, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) != 0) {
            Thread.onSpinWait();
            if (++spins % 64 == 0) {
                Thread.yield();
            }
        }
    }

    /** True when {@code key} is in the tree under {@code root}. */
    static boolean contains(Svm svm, long root, long key) {
        long current = root;
        while (current != 0) {
            long k = svm.getLong(current + Node.KEY);
            if (k == key) {
                return true;
            }
            current = svm.atomicLoadLong(current + (key < k ? Node.LEFT : Node.RIGHT), MemoryOrder.ACQUIRE,
                    MemoryScope.SYSTEM);
        }
        return false;
    }

    @Test
    void shouldKeepTheSearchTreeWholeWhileAKernelAndHostThreadsInsertConcurrently() throws InterruptedException {
        List<Long> keys = new ArrayList<>(TOTAL);
        for (int i = 0; i < TOTAL; i++) {
            keys.add(i * 1_000_003L - 5_000_000_000L);
        }
        Collections.shuffle(keys, new Random(20_24));
        List<Long> initial = keys.subList(0, INITIAL_KEYS);
        List<Long> kernelKeys = keys.subList(INITIAL_KEYS, INITIAL_KEYS + KERNEL_KEYS);
        List<Long> hostKeys = keys.subList(INITIAL_KEYS + KERNEL_KEYS, TOTAL);

        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            Svm svm = rt.svm();
            Arena arena = new Arena(rt.hostMalloc(TOTAL * Node.SIZE), rt.hostMalloc(8), TOTAL);
            svm.setInt(arena.counter(), 0);
            long root = arena.newNode(svm, initial.get(0));
            for (long key : initial.subList(1, INITIAL_KEYS)) {
                insert(svm, arena, root, key);
            }
            LongView kernelKeyArray = svm.longs(rt.hostMalloc(8L * KERNEL_KEYS), KERNEL_KEYS);
            for (int i = 0; i < KERNEL_KEYS; i++) {
                kernelKeyArray.set(i, kernelKeys.get(i));
            }

            Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
            DispatchCompletion done = KernelLauncher.launch(rt, q, wi -> {
                Svm s = wi.svm();
                Arena a = new Arena(arg(wi, 2), arg(wi, 3), (int) arg(wi, 4));
                insert(s, a, arg(wi, 0), s.getLong(arg(wi, 1) + 8 * wi.flatGlobalId()));
            }, KERNEL_KEYS, 64, root, kernelKeyArray.address(0), arena.nodes(), arena.counter(), arena.capacity());

            AtomicReference<Throwable> hostFailure = new AtomicReference<>();
            Thread[] threads = new Thread[HOST_THREADS];
            for (int t = 0; t < HOST_THREADS; t++) {
                List<Long> mine = hostKeys.subList(t * KEYS_PER_HOST_THREAD, (t + 1) * KEYS_PER_HOST_THREAD);
                threads[t] = new Thread(() -> {
                    try {
                        for (long key : mine) {
                            insert(svm, arena, root, key);
                        }
                    } catch (Throwable e) {
                        hostFailure.compareAndSet(null, e);
                    }
                }, "tree-inserter-" + t);
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            KernelLauncher.await(done);
            if (hostFailure.get() != null) {
                fail("a host inserter failed", hostFailure.get());
            }

            assertEquals(TOTAL, svm.getInt(arena.counter()), "nodes taken from the arena");
            List<Long> inOrder = checkSearchTreeProperty(svm, root);
            assertEquals(TOTAL, inOrder.size(), "nodes reachable from the root");
            List<Long> sorted = new ArrayList<>(keys);
            Collections.sort(sorted);
            assertEquals(sorted, inOrder);
            for (long key : keys) {
                assertTrue(contains(svm, root, key), "key " + key + " is found by a search");
            }
            assertFalse(contains(svm, root, 1), "a key never inserted is not found");
        }
    }

    /**
     * Walks the whole tree checking that each key lies strictly between the bounds its ancestors
     * set and that every lock is free; returns the keys in order.
     */
    private static List<Long> checkSearchTreeProperty(Svm svm, long root) {
        List<Long> inOrder = new ArrayList<>();
        record Frame(long node, long low, long high, boolean expanded) {
        }
        ArrayDeque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(root, Long.MIN_VALUE, Long.MAX_VALUE, false));
        while (!stack.isEmpty()) {
            Frame f = stack.pop();
            long key = svm.getLong(f.node() + Node.KEY);
            if (f.expanded()) {
                inOrder.add(key);
                continue;
            }
            assertTrue(key > f.low() && key < f.high(), "key " + key + " breaks the search-tree order");
            assertEquals(0, svm.getInt(f.node() + Node.LOCK), "lock of node with key " + key);
            long left = svm.getAddress(f.node() + Node.LEFT);
            long right = svm.getAddress(f.node() + Node.RIGHT);
            if (right != 0) {
                stack.push(new Frame(right, key, f.high(), false));
            }
            stack.push(new Frame(f.node(), f.low(), f.high(), true));
            if (left != 0) {
                stack.push(new Frame(left, f.low(), key, false));
            }
        }
        return inOrder;
    }
}
