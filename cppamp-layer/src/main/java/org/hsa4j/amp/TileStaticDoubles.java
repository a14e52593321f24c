package org.hsa4j.amp;

/** A {@link TileStatic} array of doubles, declared with {@link TiledExtent#tileStaticDoubles(int)}. */
public final class TileStaticDoubles extends TileStatic {
    TileStaticDoubles(long offset, int length) {
        super(offset, length, Double.BYTES);
    }

    /** Element {@code i} of the calling work-item's tile. */
    public double get(TiledIndex t, int i) {
        return t.memory.getDouble(at(i));
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, double value) {
        t.memory.setDouble(at(i), value);
    }
}
