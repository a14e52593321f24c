package org.hsa4j.memory;

/**
 * Layout of the page table that managed and plain system allocations carry: the page size and
 * how one page's state is packed into a long. Nothing else hard-codes a page size or a bit.
 *
 * <pre>
 * bits  0..7   location: index of the agent whose memory holds the page (0 = host)
 * bits  8..15  preferred location (meaningful when PREFERRED is set)
 * bit   16     PREFERRED: a preferred location is advised
 * bit   17     READ_MOSTLY: reads by other agents duplicate the page
 * bit   18     COARSE_GRAIN: the page behaves as coarse-grained memory
 * </pre>
 */
public final class PageDescriptor {
    /** log2 of the page size. */
    public static final int PAGE_SHIFT = 12;
    /** Bytes per page (4 KiB, the x86 and GPU base page). */
    public static final long PAGE_SIZE = 1L << PAGE_SHIFT;

    /** Shift of the location field. */
    public static final int LOCATION_SHIFT = 0;
    /** Shift of the preferred-location field. */
    public static final int PREFERRED_LOCATION_SHIFT = 8;
    /** Mask of an agent-index field once shifted down. */
    public static final long AGENT_FIELD_MASK = 0xFF;
    /** Flag: a preferred location is advised. */
    public static final long PREFERRED = 1L << 16;
    /** Flag: the page is advised read-mostly. */
    public static final long READ_MOSTLY = 1L << 17;
    /** Flag: the page is advised coarse-grained. */
    public static final long COARSE_GRAIN = 1L << 18;

    private PageDescriptor() {
    }

    /** Number of pages that {@code bytes} bytes span from a page boundary. */
    public static int pageCount(long bytes) {
        return (int) ((bytes + PAGE_SIZE - 1) >>> PAGE_SHIFT);
    }

    /** Index of the page holding byte {@code offset} of an allocation. */
    public static int pageOf(long offset) {
        return (int) (offset >>> PAGE_SHIFT);
    }

    /** Offset of the first byte of page {@code page}. */
    public static long pageOffset(int page) {
        return (long) page << PAGE_SHIFT;
    }

    /** The location field of {@code state}. */
    public static int location(long state) {
        return (int) ((state >>> LOCATION_SHIFT) & AGENT_FIELD_MASK);
    }

    /** {@code state} with its location set to {@code agent}. */
    public static long withLocation(long state, int agent) {
        return (state & ~(AGENT_FIELD_MASK << LOCATION_SHIFT)) | ((long) agent << LOCATION_SHIFT);
    }

    /** The preferred-location field of {@code state} (meaningful when {@link #PREFERRED} is set). */
    public static int preferredLocation(long state) {
        return (int) ((state >>> PREFERRED_LOCATION_SHIFT) & AGENT_FIELD_MASK);
    }

    /** {@code state} with a preferred location of {@code agent} and the PREFERRED flag. */
    public static long withPreferredLocation(long state, int agent) {
        return (state & ~(AGENT_FIELD_MASK << PREFERRED_LOCATION_SHIFT)) | ((long) agent << PREFERRED_LOCATION_SHIFT)
                | PREFERRED;
    }

    /** {@code state} without a preferred location. */
    public static long withoutPreferredLocation(long state) {
        return state & ~(AGENT_FIELD_MASK << PREFERRED_LOCATION_SHIFT) & ~PREFERRED;
    }
}
