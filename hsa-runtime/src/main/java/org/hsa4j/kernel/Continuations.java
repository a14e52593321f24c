package org.hsa4j.kernel;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Access to the JDK's one-shot delimited continuations ({@code jdk.internal.vm.Continuation}),
 * which run the work-items of a barrier kernel under the opt-in {@link ContinuationBarriers}. The
 * package must be exported to hsa4j with {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}
 * (the launcher adds it with {@code HSA4J_BARRIERS=continuations}; the build's second test
 * execution passes it). Without it, that strategy refuses barrier kernels with more than one
 * work-item per group with a message that names the flag. Handles are static finals, so calls inline.
 */
final class Continuations {
    /** The JVM flag that makes continuations available. */
    static final String FLAG = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED";

    static final boolean AVAILABLE;
    static final String UNAVAILABLE_REASON;
    private static final Object SCOPE;
    private static final MethodHandle NEW;
    private static final MethodHandle RUN;
    private static final MethodHandle IS_DONE;
    private static final MethodHandle YIELD;

    static {
        Object scope = null;
        MethodHandle create = null;
        MethodHandle run = null;
        MethodHandle isDone = null;
        MethodHandle yield = null;
        String reason = null;
        try {
            Class<?> scopeClass = Class.forName("jdk.internal.vm.ContinuationScope");
            Class<?> continuationClass = Class.forName("jdk.internal.vm.Continuation");
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            scope = lookup.findConstructor(scopeClass, MethodType.methodType(void.class, String.class))
                    .invoke("hsa4j-workgroup");
            create = lookup.findConstructor(continuationClass,
                            MethodType.methodType(void.class, scopeClass, Runnable.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
            run = lookup.findVirtual(continuationClass, "run", MethodType.methodType(void.class))
                    .asType(MethodType.methodType(void.class, Object.class));
            isDone = lookup.findVirtual(continuationClass, "isDone", MethodType.methodType(boolean.class))
                    .asType(MethodType.methodType(boolean.class, Object.class));
            yield = lookup.findStatic(continuationClass, "yield", MethodType.methodType(boolean.class, scopeClass))
                    .asType(MethodType.methodType(boolean.class, Object.class));
        } catch (Throwable t) {
            reason = "workgroup barriers need the JVM flag " + FLAG + " (" + t + ")";
            scope = null;
        }
        AVAILABLE = reason == null;
        UNAVAILABLE_REASON = reason;
        SCOPE = scope;
        NEW = create;
        RUN = run;
        IS_DONE = isDone;
        YIELD = yield;
    }

    private Continuations() {
    }

    static Object create(Runnable body) {
        try {
            return NEW.invokeExact(SCOPE, body);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void run(Object continuation) {
        try {
            RUN.invokeExact(continuation);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static boolean isDone(Object continuation) {
        try {
            return (boolean) IS_DONE.invokeExact(continuation);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static boolean yieldToWorkgroup() {
        try {
            return (boolean) YIELD.invokeExact(SCOPE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
