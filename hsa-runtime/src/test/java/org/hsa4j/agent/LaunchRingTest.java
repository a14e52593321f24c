package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The agent's ring of launched work: order, claiming, back-pressure and what shutdown sees. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaunchRingTest {
    private final LaunchRing ring = new LaunchRing(LaunchRing.CAPACITY);
    private final List<ComputeUnit> units = new ArrayList<>();

    @AfterEach
    void closeUnits() {
        units.forEach(u -> u.executor.close());
    }

    /** Fake clock of {@link #pacedUnit()}'s pacer, in nanoseconds. */
    private long now;
    /** What {@link #pacedUnit()}'s pacer asked for: unclaimed parts per wake. */
    private final List<Long> wakes = new ArrayList<>();

    /** A unit whose pacer reads {@link #now} and records into {@link #wakes}, with a 50 us threshold. */
    private ComputeUnit pacedUnit() {
        ComputeUnit u = new ComputeUnit(units.size(), null, 64, new HelperPacer(50_000, () -> now, wakes::add));
        units.add(u);
        return u;
    }

    private ComputeUnit unit() {
        ComputeUnit u = new ComputeUnit(units.size(), null, 64, new HelperPacer(Long.MAX_VALUE, () -> 0, parts -> { }));
        units.add(u);
        return u;
    }

    /** Work of {@code parts} parts that counts how often each part ran. */
    private static class Parts extends Work {
        final int parts;
        final AtomicIntegerArray runs;
        private final AtomicLong next = new AtomicLong();
        final List<Work> seenAsCurrent = new ArrayList<>();

        Parts(int parts) {
            super(null, 0, null);
            this.parts = parts;
            this.runs = new AtomicIntegerArray(parts);
        }

        @Override
        boolean claimable() {
            return next.get() < parts;
        }

        @Override
        long unclaimedParts() {
            return Math.max(0, parts - next.get());
        }

        @Override
        long claim() {
            long p = next.getAndIncrement();
            return p < parts ? p : -1;
        }

        @Override
        boolean isLastPart(long part) {
            return part == parts - 1;
        }

        @Override
        void run(long part, ComputeUnit unit) {
            runs.incrementAndGet((int) part);
            synchronized (seenAsCurrent) {
                seenAsCurrent.add(unit.current());
            }
        }
    }

    @Test
    void shouldFindNothingToRunWhenEmpty() {
        assertFalse(ring.runOne(unit()));
        assertNull(ring.peekClaimable());
        assertEquals(0, ring.size());
    }

    @Test
    void shouldRunWorksInTheOrderTheyWereAppended() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            ring.append(new Parts(1) {
                @Override
                void run(long part, ComputeUnit unit) {
                    order.add(id);
                }
            });
        }
        ComputeUnit u = unit();
        while (ring.runOne(u)) {
            assertNull(u.current(), "a unit names its work only while it claims and runs it");
        }
        assertEquals(List.of(0, 1, 2, 3, 4), order);
    }

    @Test
    void shouldNameTheWorkAsTheUnitsCurrentWhileItRuns() {
        Parts w = new Parts(1);
        ring.append(w);
        assertTrue(ring.runOne(unit()));
        assertEquals(List.of(w), w.seenAsCurrent);
    }

    @Test
    void shouldMovePastAWorkOnceItsLastPartIsClaimed() {
        Parts first = new Parts(3);
        Parts second = new Parts(1);
        ring.append(first);
        ring.append(second);
        ComputeUnit u = unit();
        ring.runOne(u);
        ring.runOne(u);
        assertSame(first, ring.peekClaimable());
        ring.runOne(u);
        assertSame(second, ring.peekClaimable(), "a fully claimed work must not hide the one behind it");
        assertEquals(1, ring.size());
    }

    @Test
    void shouldSkipAWorkWhosePartsWereClaimedOutsideTheRing() {
        Parts failed = new Parts(4);
        Parts next = new Parts(1);
        ring.append(failed);
        ring.append(next);
        while (failed.claim() >= 0) {
            // a failed dispatch hands out no more workgroups
        }
        assertTrue(ring.runOne(unit()));
        assertEquals(1, next.runs.get(0));
        assertEquals(0, ring.size());
    }

    @Test
    void shouldRefuseSpaceWhenFullUntilAWorkIsMovedPast() {
        for (int i = 0; i < LaunchRing.CAPACITY; i++) {
            assertTrue(ring.hasSpace());
            ring.append(new Parts(1));
        }
        assertFalse(ring.hasSpace());
        assertTrue(ring.runOne(unit()));
        assertTrue(ring.hasSpace());
        ring.append(new Parts(1));
        assertFalse(ring.hasSpace());
    }

    @Test
    void shouldReuseSlotsAcrossManyLapsOfTheRing() {
        ComputeUnit u = unit();
        int total = 3 * LaunchRing.CAPACITY + 7;
        List<Parts> works = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            Parts w = new Parts(1);
            works.add(w);
            ring.append(w);
            if (i % 3 == 2) {
                assertTrue(ring.runOne(u));
                assertTrue(ring.runOne(u));
                assertTrue(ring.runOne(u));
            }
        }
        while (ring.runOne(u)) {
            // drain
        }
        works.forEach(w -> assertEquals(1, w.runs.get(0)));
    }

    @Test
    void shouldListOnlyWorkNotYetMovedPastForShutdown() {
        Parts done = new Parts(1);
        Parts running = new Parts(2);
        Parts waiting = new Parts(1);
        ring.append(done);
        ring.append(running);
        ring.append(waiting);
        ComputeUnit u = unit();
        ring.runOne(u);
        ring.runOne(u);
        List<Work> listed = new ArrayList<>();
        ring.forEach(listed::add);
        assertEquals(List.of(running, waiting), listed);
    }

    @Test
    void shouldRejectACapacityThatIsNotAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new LaunchRing(12));
        assertThrows(IllegalArgumentException.class, () -> new LaunchRing(0));
    }

    @Test
    void shouldRunEveryPartExactlyOnceWhenUnitsClaimWhileWorkIsAppended() throws InterruptedException {
        claimWhileAppending(ring, 20_000);
    }

    @Test
    void shouldRunEveryPartExactlyOnceWhenTheProducerLapsATinyRing() throws InterruptedException {
        claimWhileAppending(new LaunchRing(4), 50_000);
    }

    private void claimWhileAppending(LaunchRing shared, int works) throws InterruptedException {
        List<Parts> appended = new ArrayList<>();
        for (int i = 0; i < works; i++) {
            appended.add(new Parts(1 + i % 3));
        }
        CountDownLatch producerDone = new CountDownLatch(1);
        List<Thread> claimers = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < 2; t++) {
            ComputeUnit u = unit();
            Thread th = new Thread(() -> {
                try {
                    while (true) {
                        if (!shared.runOne(u)) {
                            if (producerDone.getCount() == 0 && !shared.runOne(u)) {
                                return;
                            }
                            Thread.yield();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            th.setDaemon(true);
            claimers.add(th);
            th.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (Parts w : appended) {
            while (!shared.hasSpace()) {
                assertTrue(System.nanoTime() - deadline < 0, "the claimers stopped moving the head");
                Thread.yield();
            }
            shared.append(w);
        }
        producerDone.countDown();
        for (Thread th : claimers) {
            th.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            assertFalse(th.isAlive(), "a claimer did not finish");
        }
        assertEquals(List.of(), failures);
        for (Parts w : appended) {
            for (int p = 0; p < w.parts; p++) {
                assertEquals(1, w.runs.get(p), "part " + p + " of a " + w.parts + "-part work ran a wrong number of times");
            }
        }
        assertEquals(0, shared.size());
    }

    @Test
    void shouldAskForHelpersWhileALongWorkHasPartsLeftAndNotForItsLastPart() {
        ComputeUnit u = pacedUnit();
        ring.append(new Parts(3) {
            @Override
            void run(long part, ComputeUnit unit) {
                super.run(part, unit);
                now += 1_000_000;
            }
        });
        assertTrue(ring.runOne(u));
        assertEquals(List.of(2L), wakes, "after a 1 ms part with two parts left");
        assertTrue(ring.runOne(u));
        assertTrue(ring.runOne(u));
        assertEquals(List.of(2L, 1L), wakes, "after part 2 one part is left; the last part asks for nobody");
    }

    @Test
    void shouldNotAskForHelpersForAShortWork() {
        ComputeUnit u = pacedUnit();
        ring.append(new Parts(100) {
            @Override
            void run(long part, ComputeUnit unit) {
                super.run(part, unit);
                now += 100;
            }
        });
        int ran = 0;
        while (ring.runOne(u)) {
            ran++;
        }
        assertEquals(100, ran);
        assertEquals(List.of(), wakes, "100 parts of 100 ns are 10 us");
    }

    @Test
    void shouldAskForHelpersForOneGroupWorksQueuedBehindALongOne() {
        ComputeUnit u = pacedUnit();
        for (int i = 0; i < 3; i++) {
            ring.append(new Parts(1) {
                @Override
                void run(long part, ComputeUnit unit) {
                    super.run(part, unit);
                    now += 1_000_000;
                }
            });
        }
        assertTrue(ring.runOne(u));
        assertEquals(List.of(2L), wakes, "after a 1 ms work with two one-part works queued behind it");
    }

    @Test
    void shouldNotAskForHelpersForAStreamOfShortOneGroupWorks() {
        ComputeUnit u = pacedUnit();
        for (int i = 0; i < 255; i++) {
            ring.append(new Parts(1) {
                @Override
                void run(long part, ComputeUnit unit) {
                    super.run(part, unit);
                    now += 100;
                }
            });
        }
        int ran = 0;
        while (ring.runOne(u)) {
            ran++;
        }
        assertEquals(255, ran);
        assertEquals(List.of(), wakes, "255 works of 100 ns are 25.5 us, under the 50 us threshold");
    }
}
