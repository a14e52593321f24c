package org.hsa4j.amp;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * One {@link ContextLoop} copy per context-kernel class, for the reason and in the way
 * {@code codegen.IndexLoops} gives one per index-kernel class: the class file of
 * {@link ContextLoopTemplate} is defined again as a hidden class per kernel class, so the call
 * {@code kernel.run(idx, ctx)} in each copy sees one kernel class and is inlined. The copies live
 * in this package because the loop moves the context, whose position is not public.
 */
final class ContextLoops {
    private static final byte[] TEMPLATE = loadTemplate();

    private static final ClassValue<ContextLoop> LOOPS = new ClassValue<>() {
        @Override
        protected ContextLoop computeValue(Class<?> kernelClass) {
            try {
                MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(TEMPLATE, true);
                return (ContextLoop) copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class))
                        .invoke();
            } catch (Throwable t) {
                throw new HsaException(HsaStatus.ERROR, "cannot make the loop for " + kernelClass.getName(), t);
            }
        }
    };

    private ContextLoops() {
    }

    /** The loop copy for context kernels of class {@code kernelClass}. */
    static ContextLoop forKernelClass(Class<?> kernelClass) {
        return LOOPS.get(kernelClass);
    }

    private static byte[] loadTemplate() {
        String name = ContextLoopTemplate.class.getSimpleName() + ".class";
        try (InputStream in = ContextLoopTemplate.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("class file " + name + " not found");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
