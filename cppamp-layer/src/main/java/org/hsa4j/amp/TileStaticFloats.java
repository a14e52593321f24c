package org.hsa4j.amp;

/** A {@link TileStatic} array of floats, declared with {@link TiledExtent#tileStaticFloats(int)}. */
public final class TileStaticFloats extends TileStatic {
    TileStaticFloats(long offset, int length) {
        super(offset, length, Float.BYTES);
    }

    /** Element {@code i} of the calling work-item's tile. */
    public float get(TiledIndex t, int i) {
        return t.memory.getFloat(at(i));
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, float value) {
        t.memory.setFloat(at(i), value);
    }
}
