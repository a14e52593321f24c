package org.hsa4j.amp;

import java.io.Serializable;

/**
 * The body of a {@code parallelForEach} over a {@link TiledExtent}: runs once per work-item and may
 * wait on its tile's barrier. It is {@link Serializable} only so that the layer can find the
 * lambda's code and captured values (through {@code SerializedLambda}) and compile its barriers
 * into work-item loops; nothing is ever serialized, and captured values need not be serializable.
 */
@FunctionalInterface
public interface TiledKernel extends Serializable {
    /** Runs the work-item at {@code t}. */
    void run(TiledIndex t);
}
