package org.hsa4j.kernel;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * An executable ({@code hsa_executable_t}): Java kernels loaded by symbol name. Define kernels
 * one by one or load every {@link KernelSymbol} method of a class (a "code object"), then
 * {@link #freeze()} and look symbols up by name to get the kernel object handle for packets.
 * Each kernel object is 64 bytes of SVM ({@link KernelObjectDescriptor}) whose allocation carries
 * the {@link KernelCode}, so a packet processor resolves a handle with one lookup.
 */
public final class Executable implements AutoCloseable {
    private static final AtomicLong SYMBOL_IDS = new AtomicLong();

    private final MemoryManager memory;
    private final MemoryPool pool;
    private final Map<String, KernelCode> kernels = new LinkedHashMap<>();
    private boolean frozen;
    private boolean destroyed;

    /** Created by the runtime's {@code createExecutable}. */
    public Executable(MemoryManager memory, MemoryPool pool) {
        this.memory = memory;
        this.pool = pool;
    }

    /** Defines kernel {@code name}; fails when the name is taken or the executable is frozen. */
    public synchronized Executable define(String name, KernelDescriptor descriptor, Kernel kernel) {
        HsaException.requireNonNull(kernel, "kernel");
        return add(name, descriptor, () -> new KernelCode(name, descriptor, kernel));
    }

    /**
     * Defines kernel {@code name} with a per-workgroup entry point: {@code kernel} runs once per
     * workgroup and covers the group's range itself.
     *
     * @throws HsaException INVALID_ARGUMENT when the descriptor declares barriers (the kernel runs
     *                      its whole group in one call, so no work-item could wait for another);
     *                      otherwise as {@link #define(String, KernelDescriptor, Kernel)}
     */
    public synchronized Executable defineWorkgroup(String name, KernelDescriptor descriptor, WorkgroupKernel kernel) {
        HsaException.requireNonNull(kernel, "kernel");
        HsaException.requireNonNull(descriptor, "descriptor");
        if (descriptor.barriers()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "workgroup kernel " + name
                    + " runs its whole group in one call and cannot use workgroup barriers");
        }
        return add(name, descriptor, () -> new KernelCode(name, descriptor, kernel));
    }

    /**
     * Defines kernel {@code name} whose work-items run the kernel {@code setup} prepares once per
     * workgroup (checked views taken there cost nothing per work-item).
     *
     * @throws HsaException INVALID_ARGUMENT when the descriptor declares barriers; otherwise as
     *                      {@link #define(String, KernelDescriptor, Kernel)}
     */
    public synchronized Executable definePrepared(String name, KernelDescriptor descriptor, WorkgroupSetup setup) {
        HsaException.requireNonNull(setup, "setup");
        HsaException.requireNonNull(descriptor, "descriptor");
        if (descriptor.barriers()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "prepared kernel " + name
                    + " runs its work-items in one loop and cannot use workgroup barriers");
        }
        return add(name, descriptor, () -> new KernelCode(name, descriptor, setup));
    }

    private Executable add(String name, KernelDescriptor descriptor, Supplier<KernelCode> make) {
        HsaException.requireNonNull(name, "name");
        HsaException.requireNonNull(descriptor, "descriptor");
        checkUsable();
        if (frozen) {
            throw new HsaException(HsaStatus.FROZEN_EXECUTABLE, "cannot define " + name + ": the executable is frozen");
        }
        if (kernels.containsKey(name)) {
            throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "kernel " + name + " is already defined");
        }
        KernelCode code = make.get();
        Allocation object = memory.allocate(pool, KernelObjectDescriptor.BYTES, 64, MemoryKind.INTERNAL, -1L,
                pool.ownerAgent(), code);
        var s = object.segment();
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.KERNARG_SEGMENT_SIZE, descriptor.kernargSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.GROUP_SEGMENT_SIZE, descriptor.groupSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.PRIVATE_SEGMENT_SIZE, descriptor.privateSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.FLAGS,
                descriptor.barriers() ? KernelObjectDescriptor.FLAG_BARRIERS : 0);
        s.set(ValueLayout.JAVA_LONG, KernelObjectDescriptor.SYMBOL_ID, SYMBOL_IDS.incrementAndGet());
        code.object = object;
        kernels.put(name, code);
        return this;
    }

    /**
     * Loads a code object: every {@code static void m(WorkItem)} method of {@code codeObject}
     * annotated with {@link KernelSymbol} becomes a kernel. All methods are checked before any is
     * defined, so a refused code object defines nothing.
     *
     * @throws HsaException INVALID_CODE_OBJECT when the class has no such method or one has the wrong shape,
     *                      VARIABLE_ALREADY_DEFINED when a symbol name is taken, FROZEN_EXECUTABLE when frozen
     */
    public synchronized Executable loadCodeObject(Class<?> codeObject) {
        HsaException.requireNonNull(codeObject, "codeObject");
        checkUsable();
        if (frozen) {
            throw new HsaException(HsaStatus.FROZEN_EXECUTABLE, "cannot load " + codeObject.getName()
                    + ": the executable is frozen");
        }
        Map<String, Method> found = new LinkedHashMap<>();
        for (Method m : codeObject.getDeclaredMethods()) {
            KernelSymbol symbol = m.getAnnotation(KernelSymbol.class);
            if (symbol == null) {
                continue;
            }
            if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != void.class
                    || m.getParameterCount() != 1 || m.getParameterTypes()[0] != WorkItem.class) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT,
                        m + " must be a static void method taking one WorkItem");
            }
            String name = symbol.name().isEmpty() ? m.getName() : symbol.name();
            if (kernels.containsKey(name) || found.putIfAbsent(name, m) != null) {
                throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "kernel " + name + " of "
                        + codeObject.getName() + " is already defined");
            }
        }
        if (found.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, codeObject.getName() + " has no @KernelSymbol method");
        }
        Map<String, Kernel> bound = new LinkedHashMap<>();
        found.forEach((name, m) -> bound.put(name, bind(codeObject, m)));
        found.forEach((name, m) -> {
            KernelSymbol symbol = m.getAnnotation(KernelSymbol.class);
            define(name, new KernelDescriptor(symbol.kernargSize(), symbol.groupSegmentSize(),
                    symbol.privateSegmentSize(), symbol.barriers()), bound.get(name));
        });
        return this;
    }

    private static Kernel bind(Class<?> owner, Method m) {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
            MethodHandle target = lookup.unreflect(m);
            MethodType type = MethodType.methodType(void.class, WorkItem.class);
            return (Kernel) LambdaMetafactory.metafactory(lookup, "execute", MethodType.methodType(Kernel.class),
                    type, target, type).getTarget().invoke();
        } catch (Throwable e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot bind " + m, e);
        }
    }

    /** {@code hsa_executable_freeze}: no more definitions; symbols can be looked up. */
    public synchronized Executable freeze() {
        checkUsable();
        frozen = true;
        return this;
    }

    /** True once frozen. */
    public synchronized boolean isFrozen() {
        return frozen;
    }

    /**
     * {@code hsa_executable_get_symbol_by_name}.
     *
     * @throws HsaException INVALID_EXECUTABLE when not frozen, INVALID_SYMBOL_NAME when unknown
     */
    public synchronized ExecutableSymbol symbol(String name) {
        HsaException.requireNonNull(name, "name");
        checkUsable();
        if (!frozen) {
            throw new HsaException(HsaStatus.INVALID_EXECUTABLE, "freeze the executable before looking up symbols");
        }
        KernelCode code = kernels.get(name);
        if (code == null) {
            throw new HsaException(HsaStatus.INVALID_SYMBOL_NAME, "no kernel named " + name);
        }
        KernelDescriptor d = code.descriptor();
        return new ExecutableSymbol(name, code.handle(), d.kernargSegmentSize(), d.groupSegmentSize(),
                d.privateSegmentSize(), d.barriers());
    }

    /** Every symbol, in definition order. */
    public synchronized List<ExecutableSymbol> symbols() {
        return kernels.keySet().stream().map(this::symbol).toList();
    }

    /**
     * The live kernel whose object handle is {@code handle}, or null. Used by packet processors.
     */
    public static KernelCode fromHandle(MemoryManager memory, long handle) {
        Allocation a = memory.find(handle);
        if (a != null && a.base() == handle && a.attachment() instanceof KernelCode code && !code.isReleased()) {
            return code;
        }
        return null;
    }

    private void checkUsable() {
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_EXECUTABLE, "the executable has been destroyed");
        }
    }

    /** {@code hsa_executable_destroy}: releases every kernel object; later dispatches of them fail. */
    @Override
    public synchronized void close() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (KernelCode code : kernels.values()) {
            code.released = true;
            memory.release(code.object);
        }
        kernels.clear();
    }
}
