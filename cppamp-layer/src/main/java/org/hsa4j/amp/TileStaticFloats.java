package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A tile_static array of floats: {@code length} elements at a fixed offset of each tile's group
 * segment, declared with {@link TiledExtent#tileStaticFloats(int)}. Every tile has its own copy;
 * the work-items of a tile share it. Contents are undefined when a tile starts.
 */
public final class TileStaticFloats {
    private final long offset;
    private final int length;

    TileStaticFloats(long offset, int length) {
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
    public float get(TiledIndex t, int i) {
        return t.group.get(ValueLayout.JAVA_FLOAT, offset + (long) Objects.checkIndex(i, length) * Float.BYTES);
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, float value) {
        t.group.set(ValueLayout.JAVA_FLOAT, offset + (long) Objects.checkIndex(i, length) * Float.BYTES, value);
    }
}
