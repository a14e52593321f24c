/**
 * A C++AMP-style data-parallel layer (after HCC's C++AMP for HSA) on the hsa4j runtime: every call
 * becomes AQL packets on a runtime queue, with no side path around it.
 *
 * <table>
 * <caption>C++AMP names and theirs here</caption>
 * <tr><th>C++AMP / HCC</th><th>here</th></tr>
 * <tr><td>{@code extent<N>}, {@code index<N>}</td><td>{@link org.hsa4j.amp.Extent}, {@link org.hsa4j.amp.Index}</td></tr>
 * <tr><td>{@code tiled_extent}, {@code tiled_index}</td>
 *     <td>{@link org.hsa4j.amp.TiledExtent} (tile sizes and tile_static chosen at run time),
 *     {@link org.hsa4j.amp.TiledIndex}</td></tr>
 * <tr><td>{@code tile_barrier::wait}, {@code wait_with_*_fence}</td>
 *     <td>{@link org.hsa4j.amp.TileBarrier#await()}, {@code waitWith...MemoryFence()}</td></tr>
 * <tr><td>{@code all/global/tile_static_memory_fence}</td><td>{@link org.hsa4j.amp.Fences}</td></tr>
 * <tr><td>{@code tile_static T a[n]}</td>
 *     <td>{@code TileStaticInts/Longs/Floats/Doubles}, declared on the tiled extent</td></tr>
 * <tr><td>{@code array}, {@code array_view}</td>
 *     <td>{@link org.hsa4j.amp.Array}, {@link org.hsa4j.amp.ArrayView} and its typed subclasses</td></tr>
 * <tr><td>{@code accelerator}, {@code accelerator_view}</td>
 *     <td>{@link org.hsa4j.amp.Accelerator} (one per GPU agent), {@link org.hsa4j.amp.AcceleratorView}
 *     (one in-order AQL queue)</td></tr>
 * <tr><td>{@code parallel_for_each}, {@code completion_future}</td>
 *     <td>{@code parallelForEach} on {@link org.hsa4j.amp.Amp} or a view,
 *     {@link org.hsa4j.amp.CompletionFuture}</td></tr>
 * <tr><td>{@code create_marker}, {@code create_blocking_marker}</td>
 *     <td>{@link org.hsa4j.amp.AcceleratorView#createMarker}, {@link
 *     org.hsa4j.amp.AcceleratorView#createBlockingMarker} (barrier-AND packets)</td></tr>
 * <tr><td>{@code atomic_fetch_add} etc. with {@code std::memory_order}</td>
 *     <td>methods of {@link org.hsa4j.amp.IntArrayView}, {@link org.hsa4j.amp.LongArrayView},
 *     {@link org.hsa4j.amp.FloatArrayView} with {@link org.hsa4j.amp.CppMemoryOrder}</td></tr>
 * </table>
 *
 * <p>How kernels run fast on a CPU agent is explained in {@link org.hsa4j.amp.codegen.IndexLoops}
 * (untiled) and {@link org.hsa4j.amp.codegen.TileCompiler} (tiles and barriers); how futures work,
 * in {@link org.hsa4j.amp.CompletionFuture}.
 */
package org.hsa4j.amp;
