package org.hsa4j.amp;

/** A {@link TileStatic} array of longs, declared with {@link TiledExtent#tileStaticLongs(int)}. */
public final class TileStaticLongs extends TileStatic {
    TileStaticLongs(long offset, int length) {
        super(offset, length, Long.BYTES);
    }

    /** Element {@code i} of the calling work-item's tile. */
    public long get(TiledIndex t, int i) {
        return t.memory.getLong(at(i));
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, long value) {
        t.memory.setLong(at(i), value);
    }
}
