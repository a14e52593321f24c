package org.hsa4j.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Raw kernels at loop speed: one work-item loop class per kernel class.
 *
 * <p>A single loop calling {@code Kernel.execute} for every kernel in the process has a
 * megamorphic call site: the JIT cannot inline the kernel, so each work-item pays an interface
 * dispatch and every {@code WorkItem} read is a real load (measured in issue 22: about 2 ns per
 * work-item, a 16M-float vector add 23x a plain loop). As the C++AMP layer does for its index
 * loops, each kernel class gets its own copy of {@link WorkItemLoopTemplate}: its class file is
 * read once (and checked with the {@code java.lang.classfile} API) and defined again as a hidden
 * class per kernel class, cached in a {@link ClassValue} and unloaded with the kernel class. Each
 * copy has its own type profile, so its call is monomorphic and the kernel inlines into the loop;
 * the {@code WorkItem} stays one reused object whose fields the JIT keeps in registers. A
 * {@link WorkgroupSetup} gets a copy of {@link PreparedLoopTemplate} per setup class the same way.
 */
final class KernelLoops {
    private static final ClassValue<MethodHandle> LOOPS = copies(loadTemplate(WorkItemLoopTemplate.class), Kernel.class);
    private static final ClassValue<MethodHandle> PREPARED_LOOPS =
            copies(loadTemplate(PreparedLoopTemplate.class), WorkgroupSetup.class);

    /** A copy of {@code template} per class, each made by a constructor taking a {@code code}. */
    private static ClassValue<MethodHandle> copies(byte[] template, Class<?> code) {
        return new ClassValue<>() {
            @Override
            protected MethodHandle computeValue(Class<?> kernelClass) {
                try {
                    MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(template, true);
                    return copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class, code));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new HsaException(HsaStatus.ERROR, "cannot make the work-item loop for " + kernelClass.getName(), e);
                }
            }
        };
    }

    private KernelLoops() {
    }

    /** A work-item loop over {@code kernel}, of its kernel class's own loop class. */
    static WorkgroupRunner forKernel(Kernel kernel) {
        return make(LOOPS, kernel);
    }

    /** A loop that prepares each workgroup with {@code setup}, of its setup class's own loop class. */
    static WorkgroupRunner forSetup(WorkgroupSetup setup) {
        return make(PREPARED_LOOPS, setup);
    }

    private static WorkgroupRunner make(ClassValue<MethodHandle> loops, Object kernel) {
        try {
            return (WorkgroupRunner) loops.get(kernel.getClass()).invoke(kernel);
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw new HsaException(HsaStatus.ERROR, "cannot make the work-item loop for " + kernel.getClass().getName(), t);
        }
    }

    private static byte[] loadTemplate(Class<?> template) {
        String name = template.getSimpleName() + ".class";
        try (InputStream in = template.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("class file " + name + " not found");
            }
            byte[] bytes = in.readAllBytes();
            ClassModel model = ClassFile.of().parse(bytes);
            if (!model.thisClass().asSymbol().equals(template.describeConstable().orElseThrow())
                    || model.methods().stream().noneMatch(m -> m.methodName().equalsString("run"))) {
                throw new IllegalStateException(name + " is not the work-item loop template");
            }
            return bytes;
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
