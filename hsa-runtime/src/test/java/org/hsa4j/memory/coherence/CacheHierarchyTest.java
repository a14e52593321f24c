package org.hsa4j.memory.coherence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.hsa4j.memory.Allocation;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fidelity mode's caches on their own, driven from the test thread: two units' L1s of one set
 * each (its ways are the whole L1) over one agent's L2 (the smallest one, so sets collide), and
 * the allocations of a runtime whose host reads and writes home. Each test is one rule of the model: what a level keeps, what an
 * invalidation drops, what a write-back moves.
 */
class CacheHierarchyTest {
    private static final int SECTOR = CacheGeometry.SECTOR_SIZE;
    private static final int L2_SETS = CacheGeometry.L2_STRIPES;
    /** Bytes from a sector to the next one that takes the same L2 set (so storing there evicts the first). */
    private static final long SAME_L2_SET = (long) L2_SETS * SECTOR;
    private static final int OLD = 7;
    private static final int NEW = 42;

    private HsaRuntime rt;
    private AgentCache l2;
    private UnitCache unitA;
    private UnitCache unitB;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        l2 = new AgentCache(L2_SETS);
        unitA = new UnitCache(null, l2, 0, 1);
        unitB = new UnitCache(null, l2, 0, 1);
    }

    @AfterEach
    void close() {
        rt.close();
    }

    /** A fine-grained allocation of {@code bytes} whose ints all hold {@link #OLD} at home. */
    private Allocation fine(long bytes) {
        return filled(rt.hostMalloc(bytes), bytes);
    }

    /** A coarse-grained allocation of {@code bytes} whose ints all hold {@link #OLD} at home. */
    private Allocation coarse(long bytes) {
        long address = rt.deviceMalloc(rt.gpuAgent(), bytes);
        rt.allowAccess(address, rt.cpuAgent());
        return filled(address, bytes);
    }

    private Allocation filled(long address, long bytes) {
        for (long at = 0; at < bytes; at += Integer.BYTES) {
            rt.svm().setInt(address + at, OLD);
        }
        return rt.svm().resolve(address, bytes);
    }

    private int home(Allocation a, long offset) {
        return rt.svm().getInt(a.base() + offset);
    }

    private void setHome(Allocation a, long offset, int value) {
        rt.svm().setInt(a.base() + offset, value);
    }

    /**
     * A write at home by someone other than the agent, as the model makes it: the agent's L2 saves
     * the sector first ({@link CoherenceModel#beforeHomeWrite}), so what it may still read stays.
     */
    private void foreignWrite(Allocation a, long offset, int value) {
        l2.saveHome(a, a.base() + offset, Integer.BYTES);
        setHome(a, offset, value);
    }

    private static int load(UnitCache unit, Allocation a, long offset) {
        return (int) unit.load(a, a.base() + offset, Integer.BYTES);
    }

    private static void store(UnitCache unit, Allocation a, long offset, int value) {
        unit.store(a, a.base() + offset, Integer.BYTES, value);
    }

    @Test
    void shouldReadHomeOnAFirstLoad() {
        Allocation a = fine(SECTOR);
        setHome(a, 8, NEW);
        assertEquals(NEW, load(unitA, a, 8));
    }

    @Test
    void shouldKeepServingALoadedSectorAfterHomeChanges() {
        Allocation a = fine(SECTOR);
        load(unitA, a, 0);
        setHome(a, 200, NEW);
        assertEquals(OLD, load(unitA, a, 200), "the load filled the whole sector, so its last line is stale too");
    }

    @Test
    void shouldServeTheL2CopyAfterAnL1Invalidation() {
        Allocation a = fine(SECTOR);
        load(unitA, a, 0);
        foreignWrite(a, 0, NEW);
        unitA.invalidateClean();
        assertEquals(OLD, load(unitA, a, 0), "an agent-scope acquire leaves the L2's copy");
    }

    @Test
    void shouldReadHomeAgainAfterAWholeL2Invalidation() {
        Allocation a = coarse(SECTOR);
        load(unitA, a, 0);
        foreignWrite(a, 0, NEW);
        unitA.invalidateClean();
        l2.invalidateClean(false);
        assertEquals(NEW, load(unitA, a, 0));
    }

    @Test
    void shouldDropFineGrainedL2BytesAtAFineInvalidation() {
        Allocation a = fine(SECTOR);
        load(unitA, a, 0);
        foreignWrite(a, 0, NEW);
        unitA.invalidateClean();
        l2.invalidateClean(true);
        assertEquals(NEW, load(unitA, a, 0));
    }

    @Test
    void shouldKeepCoarseGrainedL2BytesAtAFineInvalidation() {
        Allocation a = coarse(SECTOR);
        load(unitA, a, 0);
        foreignWrite(a, 0, NEW);
        unitA.invalidateClean();
        l2.invalidateClean(true);
        assertEquals(OLD, load(unitA, a, 0), "a system-scope acquire by kernel code does not reach coarse-grained lines");
    }

    @Test
    void shouldKeepAStoreInTheL1UntilItIsWrittenBack() {
        Allocation a = fine(SECTOR);
        store(unitA, a, 4, NEW);
        assertEquals(OLD, load(unitB, a, 4), "another unit reads the L2, which has not got the store");
        unitB.invalidateClean();
        unitA.writeBack();
        assertEquals(NEW, load(unitB, a, 4));
        assertEquals(OLD, home(a, 4), "the write-back reached the L2, not home");
        l2.writeBackHome(false);
        assertEquals(NEW, home(a, 4));
    }

    @Test
    void shouldWriteBackOnlyTheBytesEachUnitWrote() {
        Allocation a = fine(SECTOR);
        store(unitA, a, 0, NEW);
        store(unitB, a, 4, NEW + 1);
        unitA.writeBack();
        unitB.writeBack();
        l2.writeBackHome(false);
        assertEquals(NEW, home(a, 0));
        assertEquals(NEW + 1, home(a, 4));
        assertEquals(OLD, home(a, 8));
    }

    @Test
    void shouldKeepDirtyBytesAcrossInvalidations() {
        Allocation a = fine(SECTOR);
        store(unitA, a, 0, NEW);
        setHome(a, 0, NEW + 1);
        unitA.invalidateClean();
        assertEquals(NEW, load(unitA, a, 0), "a unit always reads its own writes");
        unitA.writeBack();
        l2.invalidateClean(false);
        unitB.invalidateClean();
        assertEquals(NEW, load(unitB, a, 0), "dirty L2 bytes outlive a whole-L2 invalidation");
    }

    @Test
    void shouldWriteAnEvictedSectorsDirtyBytesHome() {
        Allocation a = fine(2 * SAME_L2_SET);
        long other = SAME_L2_SET;
        store(unitA, a, 0, NEW);
        unitA.writeBack();
        assertEquals(OLD, home(a, 0));
        store(unitB, a, other, NEW + 1);
        unitB.writeBack();
        assertEquals(NEW, home(a, 0), "the sector " + L2_SETS + " sectors on takes the same L2 set");
    }

    @Test
    void shouldReadASectorEvictedFromTheL2AsItWasWrittenHome() {
        Allocation a = fine(2 * SAME_L2_SET);
        long other = SAME_L2_SET;
        store(unitA, a, 0, NEW);
        unitA.writeBack();
        store(unitB, a, other, NEW + 1);
        unitB.writeBack();
        unitA.invalidateClean();
        assertEquals(NEW, load(unitA, a, 0), "the set now names the other sector, so the fill reads home, which the eviction wrote");
        assertEquals(NEW + 1, load(unitA, a, other), "the set's own sector is served by the L2");
    }

    @Test
    void shouldLeaveTheL2SetAloneOnAReadMiss() {
        Allocation a = fine(2 * SAME_L2_SET);
        long other = SAME_L2_SET;
        store(unitA, a, 0, NEW);
        unitA.writeBack();
        assertEquals(OLD, load(unitB, a, other), "the sector " + L2_SETS + " sectors on is read from home");
        assertEquals(OLD, home(a, 0), "a read miss allocates no L2 set, so the dirty sector stays in the L2");
        unitB.invalidateClean();
        assertEquals(NEW, load(unitB, a, 0), "and the L2 still serves it to the other unit");
    }

    @Test
    void shouldWriteOnlyFineGrainedSectorsHomeAtASystemRelease() {
        Allocation f = fine(SECTOR);
        Allocation c = coarse(SECTOR);
        store(unitA, f, 0, NEW);
        store(unitA, c, 0, NEW);
        unitA.writeBack();
        l2.writeBackHome(true);
        assertEquals(NEW, home(f, 0));
        assertEquals(OLD, home(c, 0), "coarse-grained data waits for the kernel's release fence");
        l2.writeBackHome(false);
        assertEquals(NEW, home(c, 0));
    }

    @Test
    void shouldMoveTheUnitsOwnStoreDownBeforeAnAtomic() {
        Allocation a = fine(SECTOR);
        store(unitA, a, 64, NEW);
        unitA.prepareAtomic(a, a.base() + 64, CacheLines.bytes(0, Integer.BYTES));
        l2.evictBytes(a, a.base() + 64, CacheLines.bytes(0, Integer.BYTES));
        assertEquals(NEW, home(a, 64), "the atomic at home sees the unit's earlier store");
        setHome(a, 64, NEW + 1);
        assertEquals(NEW + 1, load(unitA, a, 64), "no stale copy of the atomic's location is left above it");
    }

    @Test
    void shouldKeepSectorsThatShareASetInItsWays() {
        Allocation a = fine(SECTOR);
        Allocation b = fine(SECTOR);
        Allocation c = fine(SECTOR);
        store(unitA, a, 4, NEW);
        load(unitA, b, 0);
        load(unitA, c, 0);
        assertEquals(OLD, load(unitB, a, 4), "three streams in one set stay in its ways; none wrote a back");
    }

    @Test
    void shouldReplaceTheOldestWayOfAFullSet() {
        Allocation a = fine((CacheGeometry.L1_WAYS + 1L) * SECTOR);
        store(unitA, a, 0, NEW);
        for (int k = 1; k < CacheGeometry.L1_WAYS; k++) {
            load(unitA, a, (long) k * SECTOR);
        }
        assertEquals(OLD, load(unitB, a, 0), "the set still holds the stored sector");
        load(unitA, a, (long) CacheGeometry.L1_WAYS * SECTOR);
        unitB.invalidateClean();
        assertEquals(NEW, load(unitB, a, 0), "the fifth sector replaced the oldest, which went to the L2");
    }

    @Test
    void shouldPackDirtyFlagsIntoPerByteMasks() {
        CacheSector sector = new CacheSector(unitA);
        sector.put(0, 4, NEW);
        sector.put(70, 2, NEW);
        sector.put(129, 1, NEW);
        sector.put(200, 8, NEW);
        sector.put(253, 2, NEW);
        long[] masks = sector.dirtyMasks();
        assertEquals(0xFL, masks[0]);
        assertEquals(0x3L << 6, masks[1]);
        assertEquals(0x1L << 1, masks[2]);
        assertEquals(0xFFL << 8 | 0x3L << 61, masks[3]);
    }

    @Test
    void shouldReportEveryByteDirtyAfterAStreamOfStores() {
        CacheSector sector = new CacheSector(unitA);
        for (int at = 0; at < SECTOR; at += Float.BYTES) {
            sector.put(at, Float.BYTES, at);
        }
        long[] masks = sector.dirtyMasks();
        for (long mask : masks) {
            assertEquals(-1L, mask);
        }
    }

    @Test
    void shouldReportNoDirtyByteBeforeAStore() {
        assertNull(new CacheSector(unitA).dirtyMasks());
    }

    @Test
    void shouldReadBackWhatWasStoredAtEverySizeAndPlace() {
        CacheSector sector = new CacheSector(unitA);
        sector.put(8, 8, 0x1122_3344_5566_7788L);
        sector.put(16, 4, 0x99AA_BBCC);
        sector.put(22, 2, 0x5DEE);
        sector.put(25, 1, 0x7F);
        sector.put(33, 4, 0x0102_0304);
        assertEquals(0x1122_3344_5566_7788L, sector.get(8, 8));
        assertEquals((int) 0x99AA_BBCC, sector.get(16, 4));
        assertEquals(0x5DEE, sector.get(22, 2));
        assertEquals(0x7F, sector.get(25, 1));
        assertEquals(0x0102_0304, sector.get(33, 4), "an access that crosses a word");
    }
}
