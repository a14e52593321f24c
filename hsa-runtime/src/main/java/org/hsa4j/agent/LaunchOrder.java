package org.hsa4j.agent;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.QueueState;

/**
 * How launched dispatches enter the agent's {@link LaunchRing}: chosen once per agent, from the
 * runtime's configuration, so no launch or completion path tests a mode.
 *
 * <ul>
 * <li>{@link #inOrder}: every launched work goes into the ring at once, in packet order (normal mode).</li>
 * <li>{@link #overlapping}: fidelity mode's adversarial scheduling (issue 21 part 3), described there.</li>
 * </ul>
 *
 * All methods but {@link #completed} and {@link #forEach} are called by the processor role holder only.
 */
interface LaunchOrder {
    /** A dispatch of queue {@code q} was launched (its in-flight count raised); {@code barrier} is its header's barrier bit. */
    void launched(QueueSlot q, Work work, boolean barrier);

    /** No later packet of {@code q} joins the dispatches launched so far (a barrier packet). */
    void endRun(QueueSlot q);

    /** The scan of {@code q} ended: its dispatches so far go to the ring unless the next slot is empty and they may still wait for a successor. */
    void endScan(QueueSlot q);

    /** True while launched dispatches wait a bounded time for a successor: the role holder keeps scanning. */
    boolean holding();

    /** Moves released works into the ring while it has space; true when it moved some. */
    boolean poll();

    /** {@code work} completed (any thread, after its completion signal and in-flight count). */
    void completed(Work work);

    /** Calls {@code action} on every work launched but not yet in the ring (aborts, shutdown); any thread. */
    void forEach(Consumer<Work> action);

    /** Normal mode: straight into the ring. */
    static LaunchOrder inOrder(LaunchRing ring) {
        return new LaunchOrder() {
            @Override
            public void launched(QueueSlot q, Work work, boolean barrier) {
                ring.append(work);
            }

            @Override
            public void endRun(QueueSlot q) {
            }

            @Override
            public void endScan(QueueSlot q) {
            }

            @Override
            public boolean holding() {
                return false;
            }

            @Override
            public boolean poll() {
                return false;
            }

            @Override
            public void completed(Work work) {
            }

            @Override
            public void forEach(Consumer<Work> action) {
            }
        };
    }

    /** Fidelity mode: later dispatches without the barrier bit run first ({@link Overlapping}). */
    static LaunchOrder overlapping(LaunchRing ring, Runnable notifyWork, long windowNanos) {
        return new Overlapping(ring, notifyWork, windowNanos);
    }

    /**
     * Adversarial scheduling. HSA lets a dispatch without the barrier bit run before and during the
     * dispatches ahead of it in its queue; only the barrier bit, or a barrier packet on their
     * completion signals, orders them. On a GPU a missing barrier bit shows only when the earlier
     * kernel happens to be slow; here it shows every time: of each run of consecutive dispatches
     * of one queue launched in one scan, where every dispatch after the first lacks the barrier
     * bit, the last runs first, and each earlier one enters the ring only once the one after it has
     * completed. So a dispatch that reads what the dispatch before it writes, without the barrier
     * bit, reads the old data; with it (or with a barrier-AND packet between them) the run breaks
     * there and the two run in order.
     *
     * <p>A run ends at a dispatch with the barrier bit, a barrier packet, a packet that must wait,
     * or, when the queue's next slot is still empty, once it has waited {@code windowNanos} since
     * its first dispatch launched: the role holder keeps scanning meanwhile, so a producer that
     * publishes its next dispatch within the window (the usual two launch calls in a row) is
     * caught; one that publishes it later runs in order (a producer that publishes both packets,
     * or the second header first, is always caught). Held works count as in flight, so a
     * barrier-bit packet behind them waits for all of them. A held work is aborted and failed with
     * the rest of its queue; it still runs (and fails at its first abort point) when released, so
     * the works behind it are released too.
     */
    final class Overlapping implements LaunchOrder {
        private final LaunchRing ring;
        private final Runnable notifyWork;
        private final long windowNanos;
        /** Per queue, the run launched so far, oldest first (changed by the role holder only). */
        private final Map<QueueSlot, Run> runs = new ConcurrentHashMap<>();
        /** Running or ringed work, and the work ahead of it in its queue that enters the ring once it completes. */
        private final Map<Work, Work> heldBehind = new ConcurrentHashMap<>();
        /** Works whose successor completed, to enter the ring at the role holder's next scan. */
        private final ConcurrentLinkedQueue<Work> released = new ConcurrentLinkedQueue<>();

        /** Dispatches of one queue launched together (copy-on-write: aborts and shutdown read them from other threads), and when the first launched. */
        private record Run(List<Work> works, long since) {
        }

        Overlapping(LaunchRing ring, Runnable notifyWork, long windowNanos) {
            this.ring = ring;
            this.notifyWork = notifyWork;
            this.windowNanos = windowNanos;
        }

        @Override
        public void launched(QueueSlot q, Work work, boolean barrier) {
            if (barrier) {
                endRun(q);
            }
            runs.computeIfAbsent(q, k -> new Run(new CopyOnWriteArrayList<>(), System.nanoTime())).works.add(work);
        }

        @Override
        public void endScan(QueueSlot q) {
            Run run = runs.get(q);
            if (run != null && (System.nanoTime() - run.since >= windowNanos || !nextSlotEmpty(q)
                    || q.queue.state() != QueueState.ACTIVE)) {
                endRun(q);
            }
        }

        /** True when the packet at {@code q}'s read index is not published yet. */
        private static boolean nextSlotEmpty(QueueSlot q) {
            int word = AqlPacket.loadHeaderWordAcquire(q.ring, (q.readIndex & q.mask) * AqlPacket.SIZE);
            return PacketHeader.typeCode(word) == PacketType.INVALID.code();
        }

        @Override
        public boolean holding() {
            return !runs.isEmpty();
        }

        @Override
        public void endRun(QueueSlot q) {
            Run held = runs.remove(q);
            if (held == null) {
                return;
            }
            List<Work> run = held.works;
            for (int i = run.size() - 1; i > 0; i--) {
                heldBehind.put(run.get(i), run.get(i - 1));
            }
            ring.append(run.get(run.size() - 1));
        }

        @Override
        public boolean poll() {
            for (QueueSlot q : runs.keySet()) {
                endScan(q);
            }
            boolean moved = false;
            while (!released.isEmpty() && ring.hasSpace()) {
                ring.append(released.poll());
                moved = true;
            }
            return moved;
        }

        @Override
        public void completed(Work work) {
            Work ahead = heldBehind.remove(work);
            if (ahead != null) {
                released.add(ahead);
                notifyWork.run();
            }
        }

        @Override
        public void forEach(Consumer<Work> action) {
            runs.values().forEach(r -> r.works.forEach(action));
            heldBehind.values().forEach(action);
            released.forEach(action);
        }
    }
}
