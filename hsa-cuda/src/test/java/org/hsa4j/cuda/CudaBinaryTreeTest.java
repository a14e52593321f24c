package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** binary_tree_insert's host side, layout and checker, on real-address SVM without a GPU. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CudaBinaryTreeTest {
    private HsaRuntime rt;
    private MemoryPool pool;
    private Svm svm;

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        pool = rt.realSystemPool();
        svm = rt.svm();
    }

    @AfterEach
    void close() {
        rt.close();
    }

    private long root(long key) {
        long root = pool.allocate(CudaBinaryTree.Node.SIZE);
        svm.setLong(root + CudaBinaryTree.Node.VALUE, key);
        svm.setAddress(root + CudaBinaryTree.Node.LEFT, 0);
        svm.setAddress(root + CudaBinaryTree.Node.RIGHT, 0);
        return root;
    }

    private static long[] expected(long[] keys, long rootKey) {
        long[] e = Arrays.copyOf(keys, keys.length + 1);
        e[keys.length] = rootKey;
        Arrays.sort(e);
        return e;
    }

    @Test
    void theKernargLayoutIsTheKernelsParameterList() {
        KernargLayout l = CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX).ptxEntries().get("hsa4j_tree_insert");
        assertArrayEquals(new long[] {CudaBinaryTree.Args.ROOT, CudaBinaryTree.Args.NODES, CudaBinaryTree.Args.KEYS,
                CudaBinaryTree.Args.COUNT, CudaBinaryTree.Args.START, CudaBinaryTree.Args.SPIN_LIMIT}, l.offsets());
        assertEquals(CudaBinaryTree.Args.BYTES, l.bytes());
    }

    @Test
    void theKeysAreDistinctOddValues() {
        long[] keys = CudaBinaryTree.shuffledOddKeys(1000);
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(2L * i + 1, sorted[i]);
        }
    }

    @Test
    void hostThreadsInsertingConcurrentlyBuildOneSearchTreeWithEveryKeyOnce() throws Exception {
        long[] keys = CudaBinaryTree.shuffledOddKeys(4000);
        long root = root(4000);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int from = t * 2000;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = from; i < from + 2000; i++) {
                    CudaBinaryTree.insert(svm, root, pool.allocate(CudaBinaryTree.Node.SIZE), keys[i]);
                }
            }));
        }
        for (Thread t : threads) {
            assertTrue(t.join(java.time.Duration.ofSeconds(50)));
        }
        CudaBinaryTree.Result r = CudaBinaryTree.check(svm, root, expected(keys, 4000), 0);
        assertNull(r.problem());
        assertTrue(r.depth() > 1);
    }

    @Test
    void theCheckFindsAMissingKey() {
        long[] keys = {1, 3, 7};
        long root = root(4);
        CudaBinaryTree.insert(svm, root, pool.allocate(CudaBinaryTree.Node.SIZE), 1);
        CudaBinaryTree.insert(svm, root, pool.allocate(CudaBinaryTree.Node.SIZE), 7);
        CudaBinaryTree.Result r = CudaBinaryTree.check(svm, root, expected(keys, 4), 0);
        assertTrue(r.problem().contains("holds 3 nodes, 4 were inserted"), r.problem());
    }

    @Test
    void theCheckFindsATreeOutOfOrder() {
        long[] keys = {1, 7};
        long root = root(4);
        long left = pool.allocate(CudaBinaryTree.Node.SIZE);
        long right = pool.allocate(CudaBinaryTree.Node.SIZE);
        CudaBinaryTree.insert(svm, root, left, 1);
        CudaBinaryTree.insert(svm, root, right, 7);
        svm.setLong(left + CudaBinaryTree.Node.VALUE, 9);   // a left child larger than its parent
        CudaBinaryTree.Result r = CudaBinaryTree.check(svm, root, expected(keys, 4), 0);
        assertTrue(r.problem().contains("not a search tree"), r.problem());
    }
}
