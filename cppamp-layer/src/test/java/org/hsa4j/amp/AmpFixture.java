package org.hsa4j.amp;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/** A runtime with two compute units per GPU agent and the layer on it, plus SVM views for kernels. */
final class AmpFixture implements AutoCloseable {
    final HsaRuntime runtime;
    final Amp amp;
    final Accelerator accelerator;

    private AmpFixture(int gpus) {
        this(RuntimeConfig.builder().gpuAgents(gpus).computeUnits(2).build());
    }

    private AmpFixture(RuntimeConfig config) {
        runtime = HsaRuntime.init(config);
        amp = Amp.on(runtime);
        accelerator = amp.defaultAccelerator();
    }

    /** One GPU agent. */
    static AmpFixture start() {
        return new AmpFixture(1);
    }

    /** {@code gpus} GPU agents. */
    static AmpFixture start(int gpus) {
        return new AmpFixture(gpus);
    }

    /** A runtime built from {@code config}. */
    static AmpFixture start(RuntimeConfig config) {
        return new AmpFixture(config);
    }

    /** The default view. */
    AcceleratorView view() {
        return amp.defaultView();
    }

    /** {@code n} zeroed floats of fine-grained host memory. */
    FloatArrayView floats(int n) {
        return accelerator.floats(zeroed(4L * n), new Extent(n));
    }

    /** {@code n} zeroed ints of fine-grained host memory. */
    IntArrayView ints(int n) {
        return accelerator.ints(zeroed(4L * n), new Extent(n));
    }

    /** {@code n} zeroed longs of fine-grained host memory. */
    LongArrayView longs(int n) {
        return accelerator.longs(zeroed(8L * n), new Extent(n));
    }

    /** {@code n} zeroed doubles of fine-grained host memory. */
    DoubleArrayView doubles(int n) {
        return accelerator.doubles(zeroed(8L * n), new Extent(n));
    }

    /** SVM address of {@code bytes} zeroed bytes of fine-grained host memory. */
    long zeroed(long bytes) {
        long a = runtime.hostMalloc(Math.max(bytes, 8));
        runtime.svm().fill(a, Math.max(bytes, 8), (byte) 0);
        return a;
    }

    @Override
    public void close() {
        amp.close();
        runtime.close();
    }
}
