package org.hsa4j.memory;

import static org.hsa4j.memory.PageDescriptor.COARSE_GRAIN;
import static org.hsa4j.memory.PageDescriptor.PREFERRED;
import static org.hsa4j.memory.PageDescriptor.READ_MOSTLY;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Page-granularity accounting for one managed or plain system allocation (4 KiB pages, see
 * {@link PageDescriptor}): where each page lies (the host or a GPU agent), which agents may read
 * or write it without a fault, and the advice given for it.
 *
 * <p>The memory never moves (SVM is shared off-heap memory); what is modelled is what a GPU's
 * page tables would do, and that shows in the counters of {@link PageAccounting} and in faults:
 * <ul>
 * <li>Every access runs {@link #touch}: when the touching agent already maps every page the access
 *     covers (a bit per agent in {@code readers} or {@code writers}) it costs a loop of plain loads;
 *     otherwise the page is "faulted" under the table's lock.</li>
 * <li>A GPU touching plain system memory with XNACK off: a memory fault naming the page.</li>
 * <li>XNACK off, otherwise: nothing moves; the agent maps the page where it lies (a remote access).</li>
 * <li>XNACK on: a read of a read-mostly page by another agent makes a read-only copy for it (a
 *     duplication); a write to a page with copies collapses them into the writer's memory; a page
 *     with a preferred location migrates only to that agent and others map it in place; any other
 *     page migrates to the toucher, and the agents that mapped it lose their mapping.</li>
 * </ul>
 * Which accesses are reads: plain loads, atomic loads and making a view (a view's writes are not
 * seen, so they do not collapse read-mostly copies). Writes: plain stores, fill, copy targets and
 * every atomic read-modify-write or store.
 *
 * <p>Whole-allocation summaries ({@code allReaders}, {@code allWriters}) let a kernel that takes a
 * view of the whole allocation in every work-item pay one check, not one per page; every change
 * that takes a mapping away clears the agent's summary bit.
 */
public final class PageTable {
    private final Allocation owner;
    private final PageAccounting accounting;
    private final boolean plainSystemMemory;
    private final long[] state;
    private final long[] readers;
    private final long[] writers;
    private volatile long allReaders;
    private volatile long allWriters;

    /** A table for {@code owner}'s pages, all located at agent {@code location}. */
    PageTable(Allocation owner, PageAccounting accounting, int location) {
        this.owner = owner;
        this.accounting = accounting;
        this.plainSystemMemory = owner.kind == MemoryKind.SYSTEM;
        int pages = Math.max(1, PageDescriptor.pageCount(owner.size));
        state = new long[pages];
        readers = new long[pages];
        writers = new long[pages];
        long bit = 1L << location;
        for (int p = 0; p < pages; p++) {
            state[p] = PageDescriptor.withLocation(0, location);
            readers[p] = bit;
            writers[p] = bit;
        }
        allReaders = bit;
        allWriters = bit;
    }

    /** Number of pages. */
    public int pages() {
        return state.length;
    }

    /** Index of the agent where the page holding {@code offset} lies. */
    public synchronized int locationAt(long offset) {
        return PageDescriptor.location(state[page(offset)]);
    }

    /** True when the page holding {@code offset} is advised coarse-grained; false outside the allocation. */
    public boolean coarseGrainedAt(long offset) {
        return offset >= 0 && offset < owner.size && (state[PageDescriptor.pageOf(offset)] & COARSE_GRAIN) != 0;
    }

    /** Agents (bit i for agent i) that may read the page holding {@code offset} without a fault. */
    public synchronized long readersAt(long offset) {
        return readers[page(offset)];
    }

    private int page(long offset) {
        if (offset < 0 || offset >= owner.size) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "offset " + offset + " is outside " + owner);
        }
        return PageDescriptor.pageOf(offset);
    }

    /**
     * Accounts an access by {@code agent} to {@code bytes} bytes at {@code offset}: a page the agent
     * does not map yet migrates, is duplicated, is mapped in place, or faults.
     *
     * @throws MemoryFaultException MEMORY_FAULT at the page's address when a GPU touches plain system memory with XNACK off
     */
    void touch(int agent, String agentName, long offset, long bytes, boolean write) {
        long bit = 1L << agent;
        if (((write ? allWriters : allReaders) & bit) != 0 || bytes <= 0) {
            return;
        }
        long[] masks = write ? writers : readers;
        int first = PageDescriptor.pageOf(offset);
        int last = PageDescriptor.pageOf(offset + bytes - 1);
        for (int p = first; p <= last; p++) {
            if ((masks[p] & bit) == 0) {
                fault(agent, agentName, p, write);
            }
        }
        if (first == 0 && last == state.length - 1) {
            summarize(bit, write);
        }
    }

    private synchronized void summarize(long bit, boolean write) {
        long[] masks = write ? writers : readers;
        for (long m : masks) {
            if ((m & bit) == 0) {
                return;
            }
        }
        if (write) {
            allWriters |= bit;
        } else {
            allReaders |= bit;
        }
    }

    private synchronized void fault(int agent, String agentName, int p, boolean write) {
        long bit = 1L << agent;
        if (((write ? writers[p] : readers[p]) & bit) != 0) {
            return;
        }
        long s = state[p];
        int location = PageDescriptor.location(s);
        boolean xnack = accounting.xnack();
        if (plainSystemMemory && !xnack && agent != FpAtomicPolicy.CPU_AGENT) {
            accounting.countFault(agent);
            long pageAddress = owner.base + PageDescriptor.pageOffset(p);
            throw new MemoryFaultException(HsaStatus.MEMORY_FAULT, pageAddress, String.format(
                    "XNACK off: %s touched page %d (0x%016x) of plain system memory %s; a GPU may touch malloc "
                    + "memory only with XNACK on (HSA_XNACK=1), or use managed memory", agentName, p, pageAddress,
                    owner));
        }
        boolean copies = readers[p] != writers[p];
        if (!xnack) {
            map(p, bit);
            accounting.countRemoteAccess(agent);
        } else if (!write && (s & READ_MOSTLY) != 0) {
            readers[p] |= bit;
            allWriters &= ~writers[p];
            writers[p] = 0;
            accounting.countDuplication(agent);
        } else if (write && copies) {
            if (agent != location) {
                state[p] = PageDescriptor.withLocation(s, agent);
                accounting.countFaultMigration(agent);
            }
            own(p, bit);
        } else if ((s & PREFERRED) != 0 && PageDescriptor.preferredLocation(s) != agent) {
            map(p, bit);
            accounting.countRemoteAccess(agent);
        } else {
            state[p] = PageDescriptor.withLocation(s, agent);
            own(p, bit);
            accounting.countFaultMigration(agent);
        }
    }

    /** The agent maps page {@code p} where it lies (no copies exist: readers equal writers). */
    private void map(int p, long bit) {
        if (readers[p] == writers[p]) {
            writers[p] |= bit;
        }
        readers[p] |= bit;
    }

    /** Page {@code p} is mapped by the agent {@code bit} only; every other mapping and copy is gone. */
    private void own(int p, long bit) {
        allReaders &= ~(readers[p] & ~bit);
        allWriters &= ~(readers[p] & ~bit);
        readers[p] = bit;
        writers[p] = bit;
    }

    /**
     * Migrates the pages of {@code offset .. offset+bytes} to {@code agent} now
     * ({@code hipMemPrefetchAsync}); pages already there stay.
     */
    synchronized void prefetch(long offset, long bytes, int agent) {
        long bit = 1L << agent;
        for (int p = PageDescriptor.pageOf(offset); p <= PageDescriptor.pageOf(offset + bytes - 1); p++) {
            if (PageDescriptor.location(state[p]) != agent) {
                state[p] = PageDescriptor.withLocation(state[p], agent);
                own(p, bit);
                accounting.countPrefetchMigration(agent);
            }
        }
    }

    /** Applies {@code advice} to the pages of {@code offset .. offset+bytes} ({@code hipMemAdvise}). */
    synchronized void advise(long offset, long bytes, MemAdvice advice, int agent) {
        for (int p = PageDescriptor.pageOf(offset); p <= PageDescriptor.pageOf(offset + bytes - 1); p++) {
            long s = state[p];
            state[p] = switch (advice) {
                case SET_PREFERRED_LOCATION -> PageDescriptor.withPreferredLocation(s, agent);
                case UNSET_PREFERRED_LOCATION -> PageDescriptor.withoutPreferredLocation(s);
                case SET_READ_MOSTLY -> s | READ_MOSTLY;
                case UNSET_READ_MOSTLY -> s & ~READ_MOSTLY;
                case SET_COARSE_GRAIN -> s | COARSE_GRAIN;
                case UNSET_COARSE_GRAIN -> s & ~COARSE_GRAIN;
            };
            if (advice == MemAdvice.UNSET_READ_MOSTLY && readers[p] != writers[p]) {
                own(p, 1L << PageDescriptor.location(s));
            }
        }
    }
}
