package org.hsa4j.amp;

/**
 * A tiled kernel compiled to work-item loops (made by {@code TileCompiler}, one instance per
 * dispatch holding the lambda's captured values). Public only because the generated classes live
 * in the kernel's own package; applications never implement it.
 */
public interface TileProgram {
    /** Primitive locals saved per work-item at a barrier. */
    int primSlots();

    /** Reference locals saved per work-item at a barrier. */
    int refSlots();

    /** Runs every work-item of the tile {@code t} is placed on, phase by phase, up to its end. */
    void runTile(TiledIndex t);
}
