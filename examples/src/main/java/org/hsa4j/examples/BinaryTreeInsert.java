package org.hsa4j.examples;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.Extent;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;

/**
 * The OpenCL 2.0 fine-grain SVM sample: a binary search tree built by the host in SVM, then N
 * new nodes inserted concurrently, a share of them by kernel work-items and the rest by host
 * threads. Every insertion walks down from the root with acquire loads; to hang a node on an
 * empty child it locks the parent with a system-scope compare-and-swap, re-reads the child, links
 * the node with a release store and unlocks. Kernels and host threads run the same code on their
 * own views of the same memory. Checks the search-tree property and the node count.
 */
public final class BinaryTreeInsert implements Example {
    /** Layout of one tree node in SVM. */
    static final class Node {
        static final long KEY = 0;
        static final long LEFT = 8;
        static final long RIGHT = 16;
        static final long LOCK = 24;
        static final long BYTES = 32;

        private Node() {
        }
    }

    private static final int HOST_THREADS = 2;

    @Override
    public String name() {
        return "binary_tree_insert";
    }

    @Override
    public String description() {
        return "OpenCL 2.0 fine-grain SVM tree: kernel work-items and host threads insert concurrently, locking parents with system-scope CAS";
    }

    /** A distinct pseudo-random key for node {@code i} (an odd multiplier is a bijection on longs). */
    static long key(long i) {
        long z = (i + 1) * 0x9E3779B97F4A7C15L;
        return (z ^ (z >>> 29)) & Long.MAX_VALUE;
    }

    /** Inserts {@code node} (its key set, children empty) into the tree under {@code root}. */
    static void insert(Svm svm, long root, long node) {
        long key = svm.getLong(node + Node.KEY);
        long parent = root;
        long deadline = Bounded.deadline();
        while (true) {
            long child = parent + (key < svm.getLong(parent + Node.KEY) ? Node.LEFT : Node.RIGHT);
            long next = svm.atomicLoadLong(child, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            if (next != 0) {
                parent = next;
                continue;
            }
            long lock = parent + Node.LOCK;
            Bounded.spinUntil(() -> svm.atomicCompareExchangeInt(lock, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 0,
                    deadline, "the lock of a tree node");
            boolean linked = svm.atomicLoadLong(child, MemoryOrder.RELAXED, MemoryScope.SYSTEM) == 0;
            if (linked) {
                svm.atomicStoreLong(child, node, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            }
            svm.atomicStoreInt(lock, 0, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            if (linked) {
                return;
            }
        }
    }

    @Override
    public void run(PrintStream out, boolean small) throws Exception {
        int initial = small ? 1 << 10 : 1 << 15;
        int inserts = small ? 1 << 12 : 1 << 17;
        try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
            ExecutorService hostThreads = Executors.newFixedThreadPool(HOST_THREADS);
            try {
                // one cold run of the mixed workload warms the JIT and the runtime up; the rows follow it
                long cold = insertRun(rt, amp, hostThreads, initial, inserts, 40);
                out.printf("binary_tree_insert: first (cold) 40%% kernel run %.2f M inserts/s; the rows below follow it;"
                        + " baseline: the 0%% kernel row (%d host threads only)%n", inserts / (cold / 1e3), HOST_THREADS);
                for (int kernelPercent : new int[] {0, 100, 40}) {
                    long nanos = insertRun(rt, amp, hostThreads, initial, inserts, kernelPercent);
                    out.printf("binary_tree_insert: %3d%% kernel / %3d%% host: %,d nodes inserted into a tree of %,d, "
                            + "search-tree property and count hold; %.2f M inserts/s%n", kernelPercent,
                            100 - kernelPercent, inserts, initial, inserts / (nanos / 1e3));
                }
            } finally {
                hostThreads.shutdownNow();
            }
        }
    }

    /** Builds the tree, inserts with {@code kernelPercent} of the nodes done by the kernel, checks it; returns the insert time. */
    private static long insertRun(HsaRuntime rt, Amp amp, ExecutorService hostThreads, int initial, int inserts,
                                  int kernelPercent) throws InterruptedException, ExecutionException, TimeoutException {
        int total = initial + inserts;
        long nodes = rt.hostMalloc(Node.BYTES * total);
        Svm host = rt.svm();
        host.fill(nodes, Node.BYTES * total, (byte) 0);
        for (int i = 0; i < total; i++) {
            host.setLong(nodes + Node.BYTES * i + Node.KEY, key(i));
        }
        long root = nodes;
        for (int i = 1; i < initial; i++) {
            insert(host, root, nodes + Node.BYTES * i);
        }

        int byKernel = (int) ((long) inserts * kernelPercent / 100);
        Svm gpu = amp.defaultAccelerator().svm();
        long start = System.nanoTime();
        CompletionFuture kernel = byKernel == 0 ? null : amp.parallelForEach(new Extent(byKernel),
                idx -> insert(gpu, root, nodes + Node.BYTES * (initial + idx.get(0))));
        List<Future<?>> hostWork = new ArrayList<>();
        int byHost = inserts - byKernel;
        for (int t = 0; t < HOST_THREADS; t++) {
            int from = initial + byKernel + byHost * t / HOST_THREADS;
            int to = initial + byKernel + byHost * (t + 1) / HOST_THREADS;
            hostWork.add(hostThreads.submit(() -> {
                for (int i = from; i < to; i++) {
                    insert(host, root, nodes + Node.BYTES * i);
                }
            }));
        }
        for (Future<?> f : hostWork) {
            f.get(Bounded.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        if (kernel != null) {
            Bounded.await(kernel, "the inserting kernel");
        }
        long elapsed = System.nanoTime() - start;

        checkTree(host, root, total);
        rt.free(nodes);
        return elapsed;
    }

    /** In-order walk: keys strictly increase and every node is reached once. */
    private static void checkTree(Svm svm, long root, int expectedNodes) {
        ArrayDeque<Long> stack = new ArrayDeque<>();
        long node = root;
        long previous = -1;
        int count = 0;
        while (node != 0 || !stack.isEmpty()) {
            while (node != 0) {
                stack.push(node);
                node = svm.getLong(node + Node.LEFT);
            }
            node = stack.pop();
            long key = svm.getLong(node + Node.KEY);
            if (key <= previous) {
                throw new AssertionError("keys out of order: " + previous + " before " + key);
            }
            previous = key;
            count++;
            node = svm.getLong(node + Node.RIGHT);
        }
        if (count != expectedNodes) {
            throw new AssertionError("the tree has " + count + " nodes, expected " + expectedNodes);
        }
    }
}
