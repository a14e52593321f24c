package org.hsa4j.amp;

/** A {@link TileStatic} array of ints, declared with {@link TiledExtent#tileStaticInts(int)}. */
public final class TileStaticInts extends TileStatic {
    TileStaticInts(long offset, int length) {
        super(offset, length, Integer.BYTES);
    }

    /** Element {@code i} of the calling work-item's tile. */
    public int get(TiledIndex t, int i) {
        return t.memory.getInt(at(i));
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, int value) {
        t.memory.setInt(at(i), value);
    }
}
