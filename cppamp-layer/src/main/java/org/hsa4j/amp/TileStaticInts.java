package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;

/** A {@link TileStatic} array of ints, declared with {@link TiledExtent#tileStaticInts(int)}. */
public final class TileStaticInts extends TileStatic {
    TileStaticInts(long offset, int length) {
        super(offset, length, Integer.BYTES);
    }

    /** Element {@code i} of the calling work-item's tile. */
    public int get(TiledIndex t, int i) {
        return t.group.get(ValueLayout.JAVA_INT, at(i));
    }

    /** Sets element {@code i} of the calling work-item's tile. */
    public void set(TiledIndex t, int i, int value) {
        t.group.set(ValueLayout.JAVA_INT, at(i), value);
    }
}
