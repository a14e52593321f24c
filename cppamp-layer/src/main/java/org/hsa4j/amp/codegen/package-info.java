/**
 * Code the layer generates so that kernels run fast on compute-unit threads: a private copy of the
 * range loop for every untiled kernel class ({@link org.hsa4j.amp.codegen.IndexLoops}), and tiled
 * kernels compiled from their bytecode into resumable work-item loops
 * ({@link org.hsa4j.amp.codegen.TileCompiler}, {@link org.hsa4j.amp.codegen.FrameTyper}).
 */
package org.hsa4j.amp.codegen;
