package org.hsa4j.services;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/** A runtime with two GPU compute units, services on it, and a GPU queue; closed in reverse order. */
public final class Fixture implements AutoCloseable {
    public final HsaRuntime rt;
    public final Services services;
    public final Queue queue;

    private Fixture(HsaRuntime rt, Services services) {
        this.rt = rt;
        this.services = services;
        this.queue = rt.gpuAgent().createQueue(256, QueueType.MULTI, null);
    }

    /** Default services. */
    public static Fixture start() {
        return start(ServicesConfig.builder());
    }

    /** Services configured by {@code config}. */
    public static Fixture start(ServicesConfig.Builder config) {
        return start(2, config);
    }

    /** Services configured by {@code config} on a GPU with {@code computeUnits} units. */
    public static Fixture start(int computeUnits, ServicesConfig.Builder config) {
        return start(RuntimeConfig.builderFromEnvironment().computeUnits(computeUnits).build(), config);
    }

    /** Services configured by {@code config} on a runtime configured by {@code runtime}. */
    public static Fixture start(RuntimeConfig runtime, ServicesConfig.Builder config) {
        HsaRuntime rt = HsaRuntime.init(runtime);
        try {
            return new Fixture(rt, Services.start(rt, config.build()));
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            services.close();
        } finally {
            rt.close();
        }
    }
}
