package org.hsa4j.cuda;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * The seed's binary_tree_insert (the OpenCL 2.0 SVM binary tree) on the CUDA agent: GPU threads
 * and host Java threads insert distinct keys concurrently into ONE pointer-linked tree in
 * real-address SVM ({@link CudaAgent#svmPool()}), then the host walks it and checks that every key
 * is present exactly once and that the in-order walk is sorted.
 *
 * <p>What it proves: an SVM address means the same bytes to both sides, pointers stored inside the
 * data included. The GPU links its nodes by writing their SVM addresses into child pointers the host
 * then follows through the checked {@link Svm} API, and the host links nodes (each its own
 * allocation from the pool) whose addresses GPU threads follow with plain device loads.
 *
 * <p>Protocol, the same on both sides: a new node's fields are written with plain stores, then it
 * is linked by a compare-and-swap (acquire-release, system scope) of the empty child pointer from
 * 0 to the node's address; a walker loads child pointers with acquire at system scope, and moves
 * to the winner's node when its CAS loses. Keys are distinct, so no insertion ever waits for
 * another. The kernel ({@code hsa4j_tree_insert} in hsa4j_kernels.cu) first spins until the host
 * sets a start flag, so the GPU and the host threads run at the same time; it gives up after a
 * bounded number of polls and reports that with -1 in the flag.
 *
 * <p>Found on the H100 (PCIe, HOST_NATIVE_ATOMIC_SUPPORTED 0): a GPU's system-scope CAS on host
 * memory is not atomic with a host CPU's CAS on the same word; with both sides on the same links one
 * insertion in 81,920 was lost. Without host-native atomics the seed therefore gives the GPU the keys
 * left of the root and the host those right of it (one tree, every pointer followed by both checks,
 * no word CASed from both sides), and prints a contended run as an observation.
 */
final class CudaBinaryTree {
    /** Layout of a tree node in SVM (struct hsa4j_tree_node): the one place that knows its offsets. */
    static final class Node {
        /** long: the key. */
        static final long VALUE = 0;
        /** pointer: the subtree of smaller keys, 0 when empty. */
        static final long LEFT = 8;
        /** pointer: the subtree of larger keys, 0 when empty. */
        static final long RIGHT = 16;
        /** Bytes per node. */
        static final long SIZE = 24;

        private Node() {
        }
    }

    /** Kernarg layout of {@code hsa4j_tree_insert(root, nodes, keys, n, start, spin_limit)}. */
    static final class Args {
        static final long ROOT = 0;
        static final long NODES = 8;
        static final long KEYS = 16;
        static final long COUNT = 24;
        static final long START = 32;
        static final long SPIN_LIMIT = 40;
        static final long BYTES = 48;

        private Args() {
        }
    }

    /** Polls of the start flag before a GPU thread gives up: seconds, so a lost host cannot hold the GPU. */
    static final long SPIN_LIMIT = 20_000_000L;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int WORKGROUP = 256;

    /**
     * The outcome: {@code problem} is null when every check held.
     *
     * @param keys     keys inserted (GPU and host together; the root is extra)
     * @param depth    the deepest node's depth (the root is 1)
     * @param nanos    from the start flag to the last insertion, GPU and host
     * @param problem  what went wrong, or null
     */
    record Result(int keys, int depth, long nanos, String problem) {
        boolean ok() {
            return problem == null;
        }
    }

    private CudaBinaryTree() {
    }

    /**
     * Runs the seed: {@code gpuKeys} insertions by GPU threads and {@code keysPerThread} by each of
     * {@code hostThreads} host threads into one tree, on {@code queue} of {@code agent}.
     */
    static Result run(HsaRuntime rt, CudaAgent agent, CudaModule kernels, Queue queue, int gpuKeys, int hostThreads,
                      int keysPerThread) {
        return run(rt, agent, kernels, queue, gpuKeys, hostThreads, keysPerThread, agent.info().hostNativeAtomics());
    }

    /**
     * As {@link #run(HsaRuntime, CudaAgent, CudaModule, Queue, int, int, int)}; {@code contended}
     * mixes the keys, so host and GPU CAS the same links, else the GPU's keys all fall left of the
     * root and the host's right, so the two sides never CAS one word. A device without host-native
     * atomics (HOST_NATIVE_ATOMIC_SUPPORTED 0, as on a PCIe H100) does not make a GPU atomic on host
     * memory atomic with a host CPU's atomic on the same word: contended, an insertion can be lost.
     */
    static Result run(HsaRuntime rt, CudaAgent agent, CudaModule kernels, Queue queue, int gpuKeys, int hostThreads,
                      int keysPerThread, boolean contended) {
        MemoryPool pool = agent.svmPool();
        Svm svm = rt.svm();
        int total = gpuKeys + hostThreads * keysPerThread;
        long[] keys;
        long rootKey;
        if (contended) {
            keys = shuffledOddKeys(total);
            rootKey = 2L * (total / 2);   // even: distinct from every key, near the middle
        } else {
            keys = new long[total];       // the GPU's keys 1 .. 2g-1, the host's above the root 2g
            System.arraycopy(shuffledOddKeys(gpuKeys), 0, keys, 0, gpuKeys);
            long[] upper = shuffledOddKeys(total - gpuKeys);
            for (int i = 0; i < upper.length; i++) {
                keys[gpuKeys + i] = upper[i] + 2L * gpuKeys;
            }
            rootKey = 2L * gpuKeys;
        }
        List<Long> owned = new ArrayList<>();
        boolean[] gpuMayRun = new boolean[1];
        try {
            long root = own(owned, pool.allocate(Node.SIZE));
            svm.setLong(root + Node.VALUE, rootKey);
            svm.setAddress(root + Node.LEFT, 0);
            svm.setAddress(root + Node.RIGHT, 0);
            long nodes = own(owned, pool.allocate(Math.max(1, gpuKeys) * Node.SIZE));
            long keyArray = own(owned, pool.allocate(Math.max(1, gpuKeys) * 8L));
            svm.segment(keyArray, gpuKeys * 8L).copyFrom(MemorySegment.ofArray(Arrays.copyOf(keys, gpuKeys)));
            long start = own(owned, pool.allocate(64));
            svm.setInt(start, 0);
            long kernarg = rt.allocate(rt.kernargPool(), Args.BYTES);
            MemorySegment args = svm.segment(kernarg, Args.BYTES);
            args.set(ValueLayout.JAVA_LONG, Args.ROOT, root);
            args.set(ValueLayout.JAVA_LONG, Args.NODES, nodes);
            args.set(ValueLayout.JAVA_LONG, Args.KEYS, keyArray);
            args.set(ValueLayout.JAVA_INT, Args.COUNT, gpuKeys);
            args.set(ValueLayout.JAVA_LONG, Args.START, start);
            args.set(ValueLayout.JAVA_LONG, Args.SPIN_LIMIT, SPIN_LIMIT);

            Signal done = rt.createSignal(1);
            gpuMayRun[0] = true;
            dispatch(queue, kernels.kernel("hsa4j_tree_insert"), gpuKeys, kernarg, done);

            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<List<Long>> hostNodes = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < hostThreads; t++) {
                int from = gpuKeys + t * keysPerThread;
                List<Long> mine = new ArrayList<>();
                hostNodes.add(mine);
                threads.add(Thread.ofPlatform().name("tree-host-" + t).start(() -> {
                    try {
                        if (!go.await(WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                            throw new IllegalStateException("never told to start");
                        }
                        for (int i = from; i < from + keysPerThread; i++) {
                            long node = pool.allocate(Node.SIZE);
                            mine.add(node);
                            insert(svm, root, node, keys[i]);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            long t0 = System.nanoTime();
            svm.atomicStoreInt(start, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            go.countDown();
            boolean gpuDone = await(done);
            gpuMayRun[0] = !gpuDone;
            for (Thread t : threads) {
                if (!joined(t)) {
                    failure.compareAndSet(null, new IllegalStateException(t.getName() + " did not finish"));
                }
            }
            long nanos = System.nanoTime() - t0;
            for (List<Long> mine : hostNodes) {
                owned.addAll(mine);
            }
            if (!gpuDone) {
                return new Result(total, 0, nanos, "the kernel did not complete within 60 s");
            }
            if (svm.atomicLoadInt(start, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) != 1) {
                return new Result(total, 0, nanos, "GPU threads gave up waiting for the start flag");
            }
            if (failure.get() != null) {
                return new Result(total, 0, nanos, "a host thread failed: " + failure.get());
            }
            long[] expected = Arrays.copyOf(keys, total + 1);
            expected[total] = rootKey;
            Arrays.sort(expected);
            rt.free(kernarg);
            return check(svm, root, expected, nanos);
        } finally {
            // memory a kernel may still touch is never freed: a freed span would be unregistered under it
            for (long a : gpuMayRun[0] ? List.<Long>of() : owned) {
                pool.free(a);
            }
        }
    }

    /** Joins {@code t} within 60 s; an interrupt stops the wait (and is kept) and counts as not joined. */
    private static boolean joined(Thread t) {
        try {
            return t.join(java.time.Duration.ofNanos(WAIT_NANOS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static long own(List<Long> owned, long address) {
        owned.add(address);
        return address;
    }

    /** 1, 3, 5, .., 2n-1 in a fixed pseudo-random order. */
    static long[] shuffledOddKeys(int n) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = 2L * i + 1;
        }
        Random r = new Random(18);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            long k = keys[i];
            keys[i] = keys[j];
            keys[j] = k;
        }
        return keys;
    }

    /** Links {@code node} (not yet shared) holding {@code key} under {@code root}: the kernel's protocol, on the host. */
    static void insert(Svm svm, long root, long node, long key) {
        svm.setLong(node + Node.VALUE, key);
        svm.setAddress(node + Node.LEFT, 0);
        svm.setAddress(node + Node.RIGHT, 0);
        long current = root;
        while (true) {
            long link = current + (key < svm.getLong(current + Node.VALUE) ? Node.LEFT : Node.RIGHT);
            long child = svm.atomicLoadLong(link, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            if (child == 0) {
                child = svm.atomicCompareExchangeLong(link, 0, node, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
                if (child == 0) {
                    return;
                }
            }
            current = child;
        }
    }

    /** Walks the tree in order (iteratively) and compares the keys it meets with {@code expected}, sorted. */
    static Result check(Svm svm, long root, long[] expected, long nanos) {
        long[] seen = new long[expected.length];
        int count = 0;
        int depth = 0;
        ArrayDeque<long[]> stack = new ArrayDeque<>();   // {node, depth}
        long current = root;
        int level = 1;
        while (current != 0 || !stack.isEmpty()) {
            while (current != 0) {
                stack.push(new long[] {current, level});
                depth = Math.max(depth, level);
                current = svm.getAddress(current + Node.LEFT);
                level++;
            }
            long[] top = stack.pop();
            if (count == seen.length) {
                return new Result(expected.length - 1, depth, nanos, "the tree holds more nodes than the "
                        + expected.length + " inserted");
            }
            seen[count++] = svm.getLong(top[0] + Node.VALUE);
            current = svm.getAddress(top[0] + Node.RIGHT);
            level = (int) top[1] + 1;
        }
        if (count != expected.length) {
            return new Result(expected.length - 1, depth, nanos, "the tree holds " + count + " nodes, "
                    + expected.length + " were inserted");
        }
        for (int i = 1; i < count; i++) {
            if (seen[i] <= seen[i - 1]) {
                return new Result(expected.length - 1, depth, nanos, "not a search tree: " + seen[i - 1]
                        + " comes before " + seen[i] + " in order");
            }
        }
        for (int i = 0; i < count; i++) {
            if (seen[i] != expected[i]) {
                return new Result(expected.length - 1, depth, nanos, "key " + expected[i]
                        + " is missing or duplicated (found " + seen[i] + " in its place)");
            }
        }
        return new Result(expected.length - 1, depth, nanos, null);
    }

    private static void dispatch(Queue queue, CudaKernel k, int grid, long kernarg, Signal completion) {
        queue.launch(k.kernelObject()).grid(Math.max(1, grid)).workgroup(WORKGROUP).kernarg(kernarg)
                .completion(completion).dispatch();
    }

    private static boolean await(Signal s) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (s.waitScacquire(SignalCondition.EQ, 0, WAIT_NANOS, WaitState.BLOCKED) != 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the seed with its full sizes and prints what it shows; true when every check held. With
     * host-native atomics the two sides contend on every link; without, they insert into the two
     * subtrees of one root (the check), and a contended run is printed as an observation.
     */
    static boolean seed(HsaRuntime rt, CudaAgent agent, CudaModule kernels, Queue queue, PrintStream out) {
        int gpuKeys = 1 << 16;
        int hostThreads = 2;
        int perThread = 1 << 13;
        boolean nativeAtomics = agent.info().hostNativeAtomics();
        Result r = run(rt, agent, kernels, queue, gpuKeys, hostThreads, perThread, nativeAtomics);
        out.printf("binary_tree_insert: %d keys (%d by GPU threads, %d by %d host threads) into one tree in "
                + "real-address SVM (%s), depth %d, %.2f ms: %s%n", r.keys(), gpuKeys, hostThreads * perThread, hostThreads,
                nativeAtomics ? "contended links" : "GPU left of the root, host right: no host-native atomics", r.depth(),
                r.nanos() / 1e6, r.ok() ? "every key once, in order" : "FAILED: " + r.problem());
        if (!nativeAtomics) {
            Result mixed = run(rt, agent, kernels, queue, gpuKeys, hostThreads, perThread, true);
            out.printf("binary_tree_insert, observation: host and GPU CAS the same links without host-native atomics: %s%n",
                    mixed.ok() ? "no insertion lost in this run" : mixed.problem());
        }
        return r.ok();
    }
}
