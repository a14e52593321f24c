package org.hsa4j.amp;

import java.util.Objects;

/**
 * A tile_static array: {@code length} elements at a fixed offset of each tile's group segment,
 * declared with {@link TiledExtent#tileStaticFloats(int)} and its siblings. Every tile has its own
 * copy; the work-items of a tile share it. Contents are undefined when a tile starts. The typed
 * arrays ({@link TileStaticInts}, ...) are only their element accessors over {@link #at}, for the
 * reason {@link ArrayView} gives.
 */
public abstract sealed class TileStatic permits TileStaticInts, TileStaticLongs, TileStaticFloats, TileStaticDoubles {
    private final long offset;
    private final int length;
    private final int size;

    TileStatic(long offset, int length, int size) {
        this.offset = offset;
        this.length = length;
        this.size = size;
    }

    /** Number of elements. */
    public final int length() {
        return length;
    }

    /** Byte offset in the group segment. */
    public final long offset() {
        return offset;
    }

    /** Byte offset in the group segment of element {@code i}, after a bounds check. */
    final long at(int i) {
        return offset + (long) Objects.checkIndex(i, length) * size;
    }
}
