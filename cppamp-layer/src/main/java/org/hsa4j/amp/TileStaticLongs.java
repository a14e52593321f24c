package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A tile_static array of longs: {@code length} elements at a fixed offset of each tile's group
 * segment, declared with {@link TiledExtent#tileStaticLongs(int)}. Every tile has its own copy;
 * the work-items of a tile share it. Contents are undefined when a tile starts.
 */
public final class TileStaticLongs {
    private final long offset;
    private final int length;

    TileStaticLongs(long offset, int length) {
        this.offset = offset;
        this.length = length;
    }

    /** Number of elements. */
    public int length() {
        return length;
    }

    /** Byte offset in the group segment. */
    public long offset() {
        return offset;
    }

    /** Element {@code i} of the calling work-item's tile. */
    public long get(TiledIndex t, int i) {
        return t.group.get(ValueLayout.JAVA_LONG, offset + (long) Objects.checkIndex(i, length) * Long.BYTES);
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, long value) {
        t.group.set(ValueLayout.JAVA_LONG, offset + (long) Objects.checkIndex(i, length) * Long.BYTES, value);
    }
}
