package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every memory-order variant of the index operations reads and writes the descriptor's indices. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueIndexTest {
    /** A three-argument queue operation: (queue, a, b) -> result. */
    interface Cas {
        long apply(Queue q, long expected, long value);
    }

    private HsaRuntime rt;
    private Queue q;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        // a CPU agent queue with no packets: the processor never touches its indices
        q = rt.cpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    static List<Named<ToLongFunction<Queue>>> writeLoads() {
        return List.of(Named.of("loadWriteIndexScacquire", Queue::loadWriteIndexScacquire),
                Named.of("loadWriteIndexRelaxed", Queue::loadWriteIndexRelaxed));
    }

    static List<Named<BiConsumer<Queue, Long>>> writeStores() {
        return List.of(Named.of("storeWriteIndexRelaxed", Queue::storeWriteIndexRelaxed),
                Named.of("storeWriteIndexScrelease", Queue::storeWriteIndexScrelease));
    }

    static List<Named<BiFunction<Queue, Long, Long>>> writeAdds() {
        return List.of(Named.of("addWriteIndexRelaxed", Queue::addWriteIndexRelaxed),
                Named.of("addWriteIndexScacquire", Queue::addWriteIndexScacquire),
                Named.of("addWriteIndexScrelease", Queue::addWriteIndexScrelease),
                Named.of("addWriteIndexScacqScrel", Queue::addWriteIndexScacqScrel));
    }

    static List<Named<Cas>> writeCases() {
        return List.of(Named.of("casWriteIndexRelaxed", Queue::casWriteIndexRelaxed),
                Named.of("casWriteIndexScacquire", Queue::casWriteIndexScacquire),
                Named.of("casWriteIndexScrelease", Queue::casWriteIndexScrelease),
                Named.of("casWriteIndexScacqScrel", Queue::casWriteIndexScacqScrel));
    }

    static List<Named<ToLongFunction<Queue>>> readLoads() {
        return List.of(Named.of("loadReadIndexScacquire", Queue::loadReadIndexScacquire),
                Named.of("loadReadIndexRelaxed", Queue::loadReadIndexRelaxed));
    }

    static List<Named<BiConsumer<Queue, Long>>> readStores() {
        return List.of(Named.of("storeReadIndexRelaxed", Queue::storeReadIndexRelaxed),
                Named.of("storeReadIndexScrelease", Queue::storeReadIndexScrelease));
    }

    @ParameterizedTest
    @MethodSource("writeLoads")
    void shouldLoadTheWriteIndexAsStored(ToLongFunction<Queue> load) {
        assertEquals(0, load.applyAsLong(q));
        q.storeWriteIndexScrelease(1234);
        assertEquals(1234, load.applyAsLong(q));
    }

    @ParameterizedTest
    @MethodSource("writeStores")
    void shouldStoreTheWriteIndex(BiConsumer<Queue, Long> store) {
        store.accept(q, 99L);
        assertEquals(99, q.loadWriteIndexScacquire());
        store.accept(q, 1L << 40);
        assertEquals(1L << 40, q.loadWriteIndexRelaxed());
    }

    @ParameterizedTest
    @MethodSource("writeAdds")
    void shouldAddToTheWriteIndexAndReturnThePreviousValue(BiFunction<Queue, Long, Long> add) {
        assertEquals(0, add.apply(q, 5L));
        assertEquals(5, add.apply(q, 3L));
        assertEquals(8, q.loadWriteIndexScacquire());
    }

    @ParameterizedTest
    @MethodSource("writeCases")
    void shouldSwapTheWriteIndexOnlyWhenItMatches(Cas cas) {
        q.storeWriteIndexRelaxed(10);
        assertEquals(10, cas.apply(q, 10, 11), "a matching cas returns the expected value");
        assertEquals(11, q.loadWriteIndexScacquire());
        assertEquals(11, cas.apply(q, 10, 50), "a failed cas returns the value found");
        assertEquals(11, q.loadWriteIndexScacquire());
    }

    @ParameterizedTest
    @MethodSource("readLoads")
    void shouldLoadTheReadIndexAsStored(ToLongFunction<Queue> load) {
        assertEquals(0, load.applyAsLong(q));
        q.storeReadIndexScrelease(77);
        assertEquals(77, load.applyAsLong(q));
    }

    @ParameterizedTest
    @MethodSource("readStores")
    void shouldStoreTheReadIndex(BiConsumer<Queue, Long> store) {
        store.accept(q, 12L);
        assertEquals(12, q.loadReadIndexScacquire());
        assertEquals(12, q.loadReadIndexRelaxed());
    }

    @ParameterizedTest
    @MethodSource("writeAdds")
    void shouldHandOutDistinctIdsToConcurrentAdders(BiFunction<Queue, Long, Long> add) throws InterruptedException {
        int perThread = 20_000;
        boolean[] seen = new boolean[2 * perThread];
        Function<Integer, long[]> work = n -> {
            long[] ids = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = add.apply(q, 1L);
            }
            return ids;
        };
        long[][] results = new long[2][];
        Thread other = Thread.ofPlatform().start(() -> results[1] = work.apply(perThread));
        results[0] = work.apply(perThread);
        other.join();
        for (long[] ids : results) {
            for (long id : ids) {
                assertEquals(false, seen[(int) id], "id " + id + " handed out twice");
                seen[(int) id] = true;
            }
        }
        assertEquals(2L * perThread, q.loadWriteIndexScacquire());
    }
}
