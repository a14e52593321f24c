package org.hsa4j.kernel.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.hsa4j.kernel.WorkgroupExecutor;

/**
 * How a compute unit gets its {@link WorkgroupExecutor}, whose constructors are package-private so
 * that applications never make one (it is a unit's machinery, not API). Not exported from the
 * module: the agent package, in the same module, is its only caller. As {@code agent.spi.QueueFactory}
 * does, it reaches the constructor through a private lookup into {@code org.hsa4j.kernel}, made once;
 * a hook that {@code kernel} filled in instead would make {@code kernel} depend on this package (a cycle).
 */
public final class WorkgroupExecutors {
    private static final MethodHandle NEW_EXECUTOR;

    static {
        try {
            NEW_EXECUTOR = MethodHandles.privateLookupIn(WorkgroupExecutor.class, MethodHandles.lookup())
                    .findConstructor(WorkgroupExecutor.class, MethodType.methodType(void.class, int.class, boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private WorkgroupExecutors() {
    }

    /**
     * An executor whose group segment holds up to {@code groupSegmentMax} bytes; in fidelity mode
     * when {@code fidelity} (work-items last-first, group memory poisoned and race-checked).
     */
    public static WorkgroupExecutor create(int groupSegmentMax, boolean fidelity) {
        try {
            return (WorkgroupExecutor) NEW_EXECUTOR.invokeExact(groupSegmentMax, fidelity);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
