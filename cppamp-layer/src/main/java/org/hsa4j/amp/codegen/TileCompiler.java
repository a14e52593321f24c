package org.hsa4j.amp.codegen;

import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.attribute.StackMapTableAttribute;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LocalVariable;
import java.lang.classfile.instruction.LocalVariableType;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.amp.Fences;
import org.hsa4j.amp.TileBarrier;
import org.hsa4j.amp.TileFrame;
import org.hsa4j.amp.TileProgram;
import org.hsa4j.amp.TileStaticDoubles;
import org.hsa4j.amp.TileStaticFloats;
import org.hsa4j.amp.TileStaticInts;
import org.hsa4j.amp.TileStaticLongs;
import org.hsa4j.amp.TiledIndex;
import org.hsa4j.amp.TiledKernel;
import org.hsa4j.amp.codegen.FrameTyper.Kind;
import org.hsa4j.amp.codegen.FrameTyper.Snapshot;
import org.hsa4j.amp.codegen.FrameTyper.Type;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Compiles a tiled kernel lambda into work-item loops: the fast way to run tile barriers on a CPU.
 *
 * <h2>Why</h2>
 * C++AMP kernels call {@code t.barrier().await()} imperatively, in the middle of loops. The general
 * way to run that on a CPU is what the runtime does for barrier kernels: each work-item a
 * continuation, a barrier a yield (HCC's CPU path used fibers the same way). It is correct for any
 * code and never depends on the number of threads, but a yield and resume costs about 140 ns here,
 * and a 1024x1024 tiled matrix multiply with 16x16 tiles waits 2 x 64 times per work-item: 134 M
 * switches, some 19 s of switching for 1 G multiply-adds. pocl's answer is to cut the kernel at its
 * barriers and run each region as a loop over the work-items ("work-item loops"): a barrier then
 * costs saving and restoring the few locals that live across it. That is what this class does, on
 * the lambda's bytecode, with the {@code java.lang.classfile} API.
 *
 * <h2>How</h2>
 * <ol>
 * <li>Find the code. {@link TiledKernel} is {@code Serializable}, so javac gives every kernel lambda
 *     a {@code writeReplace} that returns a {@link SerializedLambda}: the implementation method
 *     (a static {@code lambda$...} method, or an instance method for lambdas that capture
 *     {@code this}) and the captured values. Nothing is serialized.</li>
 * <li>Type it. {@link FrameTyper} walks the method from javac's stack map frames and records the
 *     exact types of the locals at every barrier call (an {@code invokevirtual} of
 *     {@code TileBarrier.await} or a {@code waitWith...} variant), checking that the operand stack
 *     holds only the barrier there and that the index and barrier never escape into other code
 *     (which might wait on the barrier where the compiler cannot see).</li>
 * <li>Rewrite it into a resumable method {@code step} with the same parameters. At entry it asks
 *     the {@link TileFrame} where the current work-item stopped (0 = start) and jumps there after
 *     restoring the locals it saved. Each barrier call becomes: drop the barrier, save the locals
 *     (primitives as long bits, references as objects), record the site, return.</li>
 * <li>Wrap it in a class implementing {@link TileProgram}: fields for the captured values, a
 *     constructor from the captured values, and {@code runTile}, the phase loop: for every
 *     work-item, enter it, call {@code step}, leave it; then {@link TileFrame#endPhase()} decides
 *     between another phase, the end of the tile, or an error when only part of the tile reached
 *     the barrier. {@code step} is called by {@code invokestatic} from a loop that exists once per
 *     kernel, so it is inlined like any small method.</li>
 * <li>Define the class as a hidden nestmate of the lambda's class (so the copied code keeps its
 *     access to private members), once per lambda class; each dispatch makes one instance holding
 *     that dispatch's captured values, dropped with the dispatch.</li>
 * </ol>
 *
 * <h2>When it does not</h2>
 * Anything this cannot prove safe runs as continuations instead, with the reason recorded
 * ({@link Compiled#reason()}): a kernel that is not a plain lambda or method reference, code it
 * cannot read or define next to, monitors, a barrier inside an expression, the index or the
 * barrier passed to other methods or stored away. All work-items of a tile still run on one
 * compute unit either way, so progress never depends on the number of threads.
 */
public final class TileCompiler {
    private static final ClassDesc CD_TILED_INDEX = desc(TiledIndex.class);
    private static final ClassDesc CD_TILE_BARRIER = desc(TileBarrier.class);
    private static final ClassDesc CD_TILE_FRAME = desc(TileFrame.class);
    private static final ClassDesc CD_TILE_PROGRAM = desc(TileProgram.class);
    private static final Set<ClassDesc> GUARDED = Set.of(CD_TILED_INDEX, CD_TILE_BARRIER);
    private static final Set<ClassDesc> TRUSTED = Set.of(CD_TILED_INDEX, CD_TILE_BARRIER, desc(Fences.class),
            desc(TileStaticInts.class), desc(TileStaticLongs.class), desc(TileStaticFloats.class),
            desc(TileStaticDoubles.class));
    private static final Set<String> BARRIER_WAITS = Set.of("await", "waitWithAllMemoryFence",
            "waitWithGlobalMemoryFence", "waitWithTileStaticMemoryFence");

    /** The lookups modules granted ({@link #grant}), by module. */
    private static final Map<Module, MethodHandles.Lookup> GRANTS = new ConcurrentHashMap<>();

    private static final ClassValue<AtomicReference<Compiled>> CACHE = new ClassValue<>() {
        @Override
        protected AtomicReference<Compiled> computeValue(Class<?> type) {
            return new AtomicReference<>();
        }
    };

    private TileCompiler() {
    }

    private static ClassDesc desc(Class<?> c) {
        return c.describeConstable().orElseThrow();
    }

    /** How kernels of {@code kernel}'s class run: compiled once per class, on first use. */
    public static Compiled compile(TiledKernel kernel) {
        AtomicReference<Compiled> slot = CACHE.get(kernel.getClass());
        Compiled c = slot.get();
        if (c == null) {
            c = analyze(kernel);
            if (!slot.compareAndSet(null, c)) {
                c = slot.get();
            }
        }
        return c;
    }

    /** The outcome for one kernel class: a program factory, or the reason to run as continuations. */
    public static final class Compiled {
        private final MethodHandle writeReplace;
        private final MethodHandle factory;
        private final String reason;

        private Compiled(MethodHandle writeReplace, MethodHandle factory, String reason) {
            this.writeReplace = writeReplace;
            this.factory = factory;
            this.reason = reason;
        }

        /** True when kernels of this class run as work-item loops. */
        public boolean workItemLoops() {
            return factory != null;
        }

        /** What was compiled, or why the kernels run as continuations. */
        public String reason() {
            return reason;
        }

        /** The program for one dispatch of {@code kernel}, or null to run it as continuations. */
        public TileProgram instantiate(TiledKernel kernel) {
            if (factory == null) {
                return null;
            }
            try {
                SerializedLambda sl = (SerializedLambda) writeReplace.invoke(kernel);
                Object[] captured = new Object[sl.getCapturedArgCount()];
                for (int i = 0; i < captured.length; i++) {
                    captured[i] = sl.getCapturedArg(i);
                }
                return (TileProgram) factory.invoke(captured);
            } catch (Throwable t) {
                throw new HsaException(HsaStatus.ERROR, "cannot bind the compiled tile program of "
                        + kernel.getClass().getName(), t);
            }
        }

        @Override
        public String toString() {
            return (factory != null ? "work-item loops: " : "continuations: ") + reason;
        }
    }

    // ---- analysis ---------------------------------------------------------------------------------

    /**
     * Lets the compiler define work-item loops in {@code lookup}'s module (see
     * {@code Amp.grantTileCompiler}).
     *
     * @throws HsaException INVALID_ARGUMENT when {@code lookup} lacks full privilege access
     */
    public static void grant(MethodHandles.Lookup lookup) {
        HsaException.requireNonNull(lookup, "lookup");
        if (!lookup.hasFullPrivilegeAccess()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "the tile compiler needs a full-privilege lookup"
                    + " (MethodHandles.lookup() called in the kernels' module), not " + lookup);
        }
        GRANTS.put(lookup.lookupClass().getModule(), lookup);
    }

    /**
     * A lookup on {@code c} with private access: through its module's grant (full privilege), else
     * through this module's, which has full privilege when both share a module (the class path);
     * across named modules it needs {@code c}'s package opened to this module and lacks full privilege.
     */
    private static MethodHandles.Lookup lookupIn(Class<?> c) throws IllegalAccessException {
        MethodHandles.Lookup granted = GRANTS.get(c.getModule());
        if (granted != null) {
            return MethodHandles.privateLookupIn(c, granted);
        }
        TileCompiler.class.getModule().addReads(c.getModule());
        return MethodHandles.privateLookupIn(c, MethodHandles.lookup());
    }

    private static String notGranted(Class<?> c) {
        return "module " + c.getModule().getName() + " did not grant the tile compiler its lookup:"
                + " call Amp.grantTileCompiler(MethodHandles.lookup()) there";
    }

    private static Compiled analyze(TiledKernel kernel) {
        Class<?> kernelClass = kernel.getClass();
        MethodHandle writeReplace;
        SerializedLambda sl;
        try {
            writeReplace = lookupIn(kernelClass).unreflect(kernelClass.getDeclaredMethod("writeReplace"));
            sl = (SerializedLambda) writeReplace.invoke(kernel);
        } catch (IllegalAccessException e) {
            return new Compiled(null, null, notGranted(kernelClass));
        } catch (Throwable e) {
            if (e instanceof Error error) {
                throw error;
            }
            return new Compiled(null, null, kernelClass.getName() + " is not a lambda or method reference ("
                    + e.getClass().getSimpleName() + ")");
        }
        try {
            return compile(kernelClass, writeReplace, sl);
        } catch (Unsupported u) {
            return new Compiled(null, null, u.getMessage());
        } catch (Throwable t) {
            return new Compiled(null, null, "compiling failed: " + t);
        }
    }

    /** A reason not to compile. */
    private static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    private static Compiled compile(Class<?> kernelClass, MethodHandle writeReplace, SerializedLambda sl)
            throws Throwable {
        int kind = sl.getImplMethodKind();
        boolean instance = kind == MethodHandleInfo.REF_invokeVirtual || kind == MethodHandleInfo.REF_invokeSpecial;
        if (!instance && kind != MethodHandleInfo.REF_invokeStatic) {
            throw new Unsupported("the kernel's implementation is a " + MethodHandleInfo.referenceKindToString(kind));
        }
        ClassLoader loader = kernelClass.getClassLoader();
        Class<?> implClass = Class.forName(sl.getImplClass().replace('/', '.'), false, loader);
        MethodTypeDesc implType = MethodTypeDesc.ofDescriptor(sl.getImplMethodSignature());
        int params = implType.parameterCount();
        if (params == 0 || !implType.parameterType(params - 1).equals(CD_TILED_INDEX)
                || !implType.returnType().equals(ConstantDescs.CD_void)) {
            throw new Unsupported(sl.getImplMethodName() + sl.getImplMethodSignature()
                    + " does not take the tiled index last");
        }
        if (sl.getCapturedArgCount() != params - 1 + (instance ? 1 : 0)) {
            throw new Unsupported("the kernel binds arguments other than its captured values");
        }
        byte[] bytes;
        try (InputStream in = implClass.getResourceAsStream("/" + implClass.getName().replace('.', '/') + ".class")) {
            if (in == null) {
                throw new Unsupported("the class file of " + implClass.getName() + " cannot be read");
            }
            bytes = in.readAllBytes();
        }
        ClassModel model = ClassFile.of().parse(bytes);
        MethodModel method = model.methods().stream()
                .filter(m -> m.methodName().equalsString(sl.getImplMethodName())
                        && m.methodType().equalsString(sl.getImplMethodSignature()))
                .findFirst().orElseThrow(() -> new Unsupported("method " + sl.getImplMethodName() + " not found"));
        CodeAttribute code = (CodeAttribute) method.code()
                .orElseThrow(() -> new Unsupported(sl.getImplMethodName() + " has no code"));

        // the step method: the implementation's parameters, with the receiver first for instance methods
        List<ClassDesc> stepParams = new ArrayList<>();
        ClassDesc implDesc = desc(implClass);
        if (instance) {
            stepParams.add(implDesc);
        }
        stepParams.addAll(implType.parameterList());
        List<Type> entry = stepParams.stream().map(Type::of).toList();

        List<CodeElement> elements = code.elementList();
        List<StackMapFrameInfo> frames = code.findAttribute(Attributes.stackMapTable())
                .map(StackMapTableAttribute::entries).orElse(List.of());
        FrameTyper typer = new FrameTyper(code.maxLocals(), entry, frames, TileCompiler::isBarrierWait, GUARDED,
                TRUSTED);
        typer.run(elements);
        if (typer.problem() != null) {
            throw new Unsupported(typer.problem());
        }

        // the barrier sites and what each saves
        int paramSlots = 0;
        for (Type t : entry) {
            paramSlots += t.wide() ? 2 : 1;
        }
        List<Site> sites = new ArrayList<>();
        int primMax = 0;
        int refMax = 0;
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) instanceof Instruction ins && isBarrierWait(ins)) {
                Snapshot s = typer.snapshot(i);
                if (s == null) {
                    throw new Unsupported("a barrier the compiler could not type");
                }
                if (s.stack().size() != 1) {
                    throw new Unsupported("a barrier is waited on inside an expression");
                }
                Site site = new Site(i, sites.size() + 1);
                Type[] locals = s.locals();
                for (int slot = 0; slot < locals.length; slot++) {
                    Type t = locals[slot];
                    if (t.kind() == Kind.TOP || (slot < paramSlots && !typer.written(slot))) {
                        continue;
                    }
                    switch (t.kind()) {
                        case INT, FLOAT, LONG, DOUBLE -> site.prims.add(new Saved(slot, t, site.prims.size()));
                        case REF -> site.refs.add(new Saved(slot, t, site.refs.size()));
                        case NULL -> site.nulls.add(slot);
                        default -> throw new Unsupported("an uninitialized object lives across a barrier");
                    }
                }
                primMax = Math.max(primMax, site.prims.size());
                refMax = Math.max(refMax, site.refs.size());
                sites.add(site);
            }
        }

        int tSlot = paramSlots - 1;
        ClassDesc programDesc = ClassDesc.of(implClass.getName() + "$AmpTileProgram");
        List<ClassDesc> captureTypes = stepParams.subList(0, stepParams.size() - 1);
        MethodTypeDesc stepType = MethodTypeDesc.of(ConstantDescs.CD_void, stepParams);
        int maxLocals = code.maxLocals();
        int prims = primMax;
        int refs = refMax;

        ClassHierarchyResolver resolver = ClassHierarchyResolver.defaultResolver()
                .orElse(ClassHierarchyResolver.ofResourceParsing(loader))
                .orElse(ClassHierarchyResolver.ofClassLoading(loader)).cached();
        byte[] program = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver)).build(programDesc, cb -> {
            cb.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC);
            cb.withInterfaceSymbols(CD_TILE_PROGRAM);
            for (int i = 0; i < captureTypes.size(); i++) {
                cb.withField("c" + i, captureTypes.get(i), fb -> fb.withFlags(AccessFlag.PRIVATE, AccessFlag.FINAL));
            }
            cb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void,
                    ConstantDescs.CD_Object.arrayType()), ClassFile.ACC_PUBLIC, b -> {
                b.aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                for (int i = 0; i < captureTypes.size(); i++) {
                    b.aload(0).aload(1).loadConstant(i).aaload();
                    unboxOrCast(b, captureTypes.get(i));
                    b.putfield(programDesc, "c" + i, captureTypes.get(i));
                }
                b.return_();
            });
            cb.withMethodBody("primSlots", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PUBLIC,
                    b -> b.loadConstant(prims).ireturn());
            cb.withMethodBody("refSlots", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PUBLIC,
                    b -> b.loadConstant(refs).ireturn());
            cb.withMethodBody("runTile", MethodTypeDesc.of(ConstantDescs.CD_void, CD_TILED_INDEX), ClassFile.ACC_PUBLIC,
                    b -> emitRunTile(b, programDesc, captureTypes, stepType));
            cb.withMethodBody("step", stepType, ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC,
                    b -> emitStep(b, elements, sites, tSlot, maxLocals, implDesc));
        });

        MethodHandles.Lookup host = lookupIn(implClass);
        if (!host.hasFullPrivilegeAccess()) {
            throw new Unsupported(notGranted(implClass));
        }
        MethodHandles.Lookup defined = host.defineHiddenClass(program, true, MethodHandles.Lookup.ClassOption.NESTMATE);
        MethodHandle factory = defined.findConstructor(defined.lookupClass(),
                MethodType.methodType(void.class, Object[].class)).asType(
                MethodType.methodType(TileProgram.class, Object[].class));
        return new Compiled(writeReplace, factory, sites.size() + " barrier site(s), " + primMax
                + " primitive and " + refMax + " reference local(s) saved per work-item, from "
                + implClass.getName() + "." + sl.getImplMethodName());
    }

    private static boolean isBarrierWait(Instruction ins) {
        return ins instanceof InvokeInstruction inv && inv.opcode() == Opcode.INVOKEVIRTUAL
                && inv.owner().asSymbol().equals(CD_TILE_BARRIER) && BARRIER_WAITS.contains(inv.name().stringValue())
                && inv.typeSymbol().equals(ConstantDescs.MTD_void);
    }

    /** A barrier call: its position, its id (1..), and the locals it saves. */
    private static final class Site {
        final int element;
        final int id;
        final List<Saved> prims = new ArrayList<>();
        final List<Saved> refs = new ArrayList<>();
        final List<Integer> nulls = new ArrayList<>();

        Site(int element, int id) {
            this.element = element;
            this.id = id;
        }
    }

    /** A local saved at a site: its slot, its type, its index in the site's save area. */
    private record Saved(int slot, Type type, int index) {
    }

    // ---- generation -------------------------------------------------------------------------------

    private static void unboxOrCast(CodeBuilder b, ClassDesc type) {
        if (!type.isPrimitive()) {
            b.checkcast(type);
            return;
        }
        ClassDesc box = switch (type.descriptorString()) {
            case "Z" -> ConstantDescs.CD_Boolean;
            case "B" -> ConstantDescs.CD_Byte;
            case "C" -> ConstantDescs.CD_Character;
            case "S" -> ConstantDescs.CD_Short;
            case "I" -> ConstantDescs.CD_Integer;
            case "J" -> ConstantDescs.CD_Long;
            case "F" -> ConstantDescs.CD_Float;
            default -> ConstantDescs.CD_Double;
        };
        String getter = TypeKind.from(type).name().toLowerCase() + "Value";
        b.checkcast(box).invokevirtual(box, getter, MethodTypeDesc.of(type));
    }

    /** {@code runTile(t)}: phases of "every work-item up to its next barrier" until the tile ends. */
    private static void emitRunTile(CodeBuilder b, ClassDesc self, List<ClassDesc> captureTypes,
                                    MethodTypeDesc stepType) {
        int frame = 2;
        int size = 3;
        int item = 4;
        b.aload(1).invokestatic(CD_TILE_FRAME, "of", MethodTypeDesc.of(CD_TILE_FRAME, CD_TILED_INDEX)).astore(frame);
        b.aload(frame).invokevirtual(CD_TILE_FRAME, "size", MethodTypeDesc.of(ConstantDescs.CD_int)).istore(size);
        Label phase = b.newBoundLabel();
        b.iconst_0().istore(item);
        Label next = b.newBoundLabel();
        Label phaseEnd = b.newLabel();
        b.iload(item).iload(size).if_icmpge(phaseEnd);
        b.aload(frame).iload(item).invokevirtual(CD_TILE_FRAME, "enter",
                MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int));
        for (int i = 0; i < captureTypes.size(); i++) {
            b.aload(0).getfield(self, "c" + i, captureTypes.get(i));
        }
        b.aload(1).invokestatic(self, "step", stepType);
        b.aload(frame).invokevirtual(CD_TILE_FRAME, "leave", ConstantDescs.MTD_void);
        b.iinc(item, 1).goto_(next);
        b.labelBinding(phaseEnd);
        b.aload(frame).invokevirtual(CD_TILE_FRAME, "endPhase", MethodTypeDesc.of(ConstantDescs.CD_boolean))
                .ifeq(phase);
        b.return_();
    }

    /** The kernel body made resumable at its barrier sites. */
    private static void emitStep(CodeBuilder b, List<CodeElement> elements, List<Site> sites, int tSlot,
                                 int maxLocals, ClassDesc implDesc) {
        int frame = maxLocals;
        int primArray = maxLocals + 1;
        int primBase = maxLocals + 2;
        int refArray = maxLocals + 3;
        int refBase = maxLocals + 4;
        b.aload(tSlot).invokestatic(CD_TILE_FRAME, "of", MethodTypeDesc.of(CD_TILE_FRAME, CD_TILED_INDEX))
                .astore(frame);
        Label start = b.newLabel();
        Label[] after = new Label[sites.size()];
        if (!sites.isEmpty()) {
            List<SwitchCase> cases = new ArrayList<>();
            Label[] restore = new Label[sites.size()];
            for (int i = 0; i < sites.size(); i++) {
                restore[i] = b.newLabel();
                after[i] = b.newLabel();
                cases.add(SwitchCase.of(sites.get(i).id, restore[i]));
            }
            b.aload(frame).invokevirtual(CD_TILE_FRAME, "resumeSite", MethodTypeDesc.of(ConstantDescs.CD_int))
                    .tableswitch(1, sites.size(), start, cases);
            for (int i = 0; i < sites.size(); i++) {
                Site s = sites.get(i);
                b.labelBinding(restore[i]);
                loadSaveArea(b, frame, primArray, primBase, refArray, refBase, s);
                for (Saved p : s.prims) {
                    b.aload(primArray).iload(primBase).loadConstant(p.index()).iadd().laload();
                    switch (p.type().kind()) {
                        case INT -> b.l2i().istore(p.slot());
                        case LONG -> b.lstore(p.slot());
                        case FLOAT -> b.l2i().invokestatic(ConstantDescs.CD_Float, "intBitsToFloat",
                                MethodTypeDesc.of(ConstantDescs.CD_float, ConstantDescs.CD_int)).fstore(p.slot());
                        default -> b.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble",
                                MethodTypeDesc.of(ConstantDescs.CD_double, ConstantDescs.CD_long)).dstore(p.slot());
                    }
                }
                for (Saved r : s.refs) {
                    b.aload(refArray).iload(refBase).loadConstant(r.index()).iadd().aaload()
                            .checkcast(r.type().desc()).astore(r.slot());
                }
                for (int slot : s.nulls) {
                    b.aconst_null().astore(slot);
                }
                b.goto_(after[i]);
            }
        }
        b.labelBinding(start);
        int next = 0;
        for (int i = 0; i < elements.size(); i++) {
            CodeElement e = elements.get(i);
            if (next < sites.size() && sites.get(next).element == i) {
                Site s = sites.get(next);
                b.pop();
                loadSaveArea(b, frame, primArray, primBase, refArray, refBase, s);
                for (Saved p : s.prims) {
                    b.aload(primArray).iload(primBase).loadConstant(p.index()).iadd();
                    switch (p.type().kind()) {
                        case INT -> b.iload(p.slot()).i2l();
                        case LONG -> b.lload(p.slot());
                        case FLOAT -> b.fload(p.slot()).invokestatic(ConstantDescs.CD_Float, "floatToRawIntBits",
                                MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_float)).i2l();
                        default -> b.dload(p.slot()).invokestatic(ConstantDescs.CD_Double, "doubleToRawLongBits",
                                MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_double));
                    }
                    b.lastore();
                }
                for (Saved r : s.refs) {
                    b.aload(refArray).iload(refBase).loadConstant(r.index()).iadd().aload(r.slot()).aastore();
                }
                b.aload(frame).loadConstant(s.id).invokevirtual(CD_TILE_FRAME, "suspend",
                        MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int));
                b.return_();
                b.labelBinding(after[next]);
                next++;
                continue;
            }
            if (e instanceof LocalVariable || e instanceof LocalVariableType) {
                continue;
            }
            if (e instanceof InvokeInstruction inv && inv.opcode() == Opcode.INVOKESPECIAL
                    && !inv.name().equalsString(ConstantDescs.INIT_NAME) && inv.owner().asSymbol().equals(implDesc)) {
                // a private method of the lambda's class: a nestmate reaches it virtually
                b.invoke(inv.isInterface() ? Opcode.INVOKEINTERFACE : Opcode.INVOKEVIRTUAL, inv.owner().asSymbol(),
                        inv.name().stringValue(), inv.typeSymbol(),
                        inv.isInterface());
                continue;
            }
            b.with(e);
        }
    }

    private static void loadSaveArea(CodeBuilder b, int frame, int primArray, int primBase, int refArray, int refBase,
                                     Site s) {
        if (!s.prims.isEmpty()) {
            b.aload(frame).invokevirtual(CD_TILE_FRAME, "prims",
                    MethodTypeDesc.of(ConstantDescs.CD_long.arrayType())).astore(primArray);
            b.aload(frame).invokevirtual(CD_TILE_FRAME, "primBase", MethodTypeDesc.of(ConstantDescs.CD_int))
                    .istore(primBase);
        }
        if (!s.refs.isEmpty()) {
            b.aload(frame).invokevirtual(CD_TILE_FRAME, "refs",
                    MethodTypeDesc.of(ConstantDescs.CD_Object.arrayType())).astore(refArray);
            b.aload(frame).invokevirtual(CD_TILE_FRAME, "refBase", MethodTypeDesc.of(ConstantDescs.CD_int))
                    .istore(refBase);
        }
    }
}
