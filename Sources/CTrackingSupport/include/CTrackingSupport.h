#ifndef C_TRACKING_SUPPORT_H
#define C_TRACKING_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

// Per-thread state of the tracking registrar. Swift has no thread-local storage, so this tiny C
// target keeps one `tracking_thread` per thread in `_Thread_local` storage with the initial-exec
// model: reaching it is one %fs-relative load, no call, no lock, no allocation.

/// One object read in the active scopes: the properties read in one 64-property word of it.
typedef struct tracking_entry {
    void *object;        ///< The object, retained by the scope until the outermost scope ends (unless installed at the read).
    uint64_t mask;       ///< Bit i: property `word * 64 + i` was read.
    uint64_t version;    ///< The object's write word (`_writes`) loaded before its first read; in an
                         ///< entry installed at its read, the address of its masked slot, or 0.
    uint32_t word;       ///< Which 64-property word `mask` describes.
    uint32_t ownWrites;  ///< Writes of the object begun by this thread since it was first read.
    int32_t previous;    ///< This scope's previous entry for the same object (another word), or -1.
    int32_t position;    ///< In a reusable scope's run: how many kept dependencies were read before it.
    int32_t dependency;  ///< In a reusable scope's run: the previous dependency this entry takes over, or -1.
} tracking_entry;

/// Where this thread last recorded an object: a guess, checked against the buffer before use, so
/// that a repeated read finds its entry without writing to the object. Direct-mapped by address.
typedef struct tracking_seen {
    uintptr_t object;    ///< The object's address (an integer: Swift compares it with no null test), or 0.
    intptr_t index;      ///< An entry index (>= 0), or -1 - i for kept dependency i of the running reusable scope.
} tracking_seen;

#define TRACKING_SEEN_COUNT 64
#define TRACKING_SKIPS_KEPT 16

/// Words that hold one dependency, both halves (`tracking_thread.displaced`; `Dependency`).
#define TRACKING_DISPLACED_WORDS 6

/// The running reusable scope's cursor over its previous dependencies (`ReusableScope.run`), in
/// one struct so that a run saves and restores it as one value.
///
/// The dependency at `cursor` is always readable and is a real one only while it is before
/// `dependencies + dependencyCount`: the run's buffer ends with a sentinel dependency, a scope
/// nested in the run moves `cursor` to it (and `dependencyCount` to 0) until it ends, and outside
/// a run `dependencies` and `cursor` are `tracking_no_dependencies_address()`. So a getter's inline keep
/// compares the dependency at the cursor with no bounds check. The cursor is an address, not an
/// index: the getter reaches the dependency with one load and steps it with one add.
typedef struct tracking_run {
    void *dependencies;       ///< The running reusable scope's previous dependencies, or `tracking_no_dependencies_address()`.
    void *cursor;             ///< The next of them a read is expected to match (`Dependency.index`).
    intptr_t dependencyCount; ///< How many there are (0 outside the outermost reusable scope's run).
    intptr_t cursorDepth;     ///< The scope depth at which the cursor applies (0: none).
    intptr_t bitsRead;        ///< Properties the run has read of its kept dependencies beyond one per dependency kept, plus `RunReads.displacement` once a new read took the last one's place.
    intptr_t reshaped;        ///< Nonzero once the run read a kept dependency differently (see ReusableScope).
    intptr_t skipCount;       ///< Dependencies the run's cursor skipped (not read where expected).
    intptr_t restOffset;      ///< Bytes from a dependency to the rest of it (`DependencyBuffer.restOffset`).
} tracking_run;

/// The outermost one-shot scope open on this thread that installs each object's slots at its
/// first read (`TrackingScope.track`; see `TrackingScope.installAtRead`), so that it holds no
/// reference to what it reads. Its entries carry `TRACKING_WORD_INSTALLED` in `word`.
typedef struct tracking_at_read {
    uint32_t record;          ///< Its record index, `TRACKING_RECORD_NOT_TAKEN`, or 0 when no such scope is open.
    uint32_t generation;      ///< Its record's generation.
    uint64_t watched;         ///< Its record's `watchedSlots` as this thread last saw it: a death lowers it.
    const uint64_t *watchedAddress; ///< Where that word is (an atomic: `tracking_load_acquire`).
    intptr_t slots;           ///< Slots installed at reads so far.
    intptr_t changed;         ///< Nonzero once a read saw a write race its install.
} tracking_at_read;

/// `tracking_at_read.record` of a scope open that has not taken a record yet (it installed
/// nothing so far): it takes one at its first install, so a body that reads nothing costs none.
#define TRACKING_RECORD_NOT_TAKEN 0xFFFFFFFFu

/// The word `tracking_at_read.watchedAddress` names before a record is taken: always 0, as
/// `watched` is then (nothing installed, nothing to forget).
extern const uint64_t tracking_nothing_watched;

static inline __attribute__((always_inline)) const uint64_t *tracking_nothing_watched_address(void) {
    return &tracking_nothing_watched;
}

/// In `tracking_entry.word`: the entry's slots were installed at the read (`tracking_at_read`); the
/// scope holds no retain on its object, and only finds it again after checking that no object it
/// watches has gone away (an address may then be another object's).
#define TRACKING_WORD_INSTALLED 0x80000000u

/// The calling thread's tracking state. Only its own thread touches it.
typedef struct tracking_thread {
    tracking_entry *entries;  ///< Entries of all active (nested) scopes, outermost first.
    intptr_t count;           ///< Entries in use.
    intptr_t capacity;        ///< Entries allocated.
    intptr_t depth;           ///< Active scopes on this thread; 0 means reads are not tracked.
    intptr_t scopeStart;      ///< First entry of the innermost active scope.
    uint32_t *pending;        ///< Callbacks won by mutations on this thread, awaiting their start (`Claim`: record and run).
    intptr_t pendingCount;
    intptr_t pendingCapacity;
    uint64_t scheduleTicket;  ///< Schedule-point builds only: this thread's sequence for choosing yields.
    tracking_run run;         ///< The running reusable scope's cursor, saved and restored as one.
    /// In an outermost run that began with an observed write in flight: its cursor, held away from
    /// the getters (`run.cursor` is then `tracking_no_dependencies_address()`) until the run ends;
    /// otherwise null. Outside `run`, so that a run that holds nothing saves, sets and restores
    /// nothing more. See `ReusableScope.run`.
    void *heldCursor;
    intptr_t skips[TRACKING_SKIPS_KEPT]; ///< The first dependencies its cursor skipped, in order.
    uint64_t displaced[TRACKING_DISPLACED_WORDS]; ///< The last dependency, when a new read took its place (`RunReads.displacement`), both halves.
    tracking_seen seen[TRACKING_SEEN_COUNT];
    tracking_at_read atRead;  ///< The outermost one-shot scope installing at reads, if any.
    uint32_t lane;            ///< Which of an object's slot chains this thread installs in, plus 1; 0 until its first install.
    /// Objects the registrar let go of while a scope was open on this thread (a run's dropped
    /// dependencies, a cancelled scope's objects), each holding one retain: released when the
    /// thread's outermost scope ends (`TrackingScope.releaseLater`), so that no deinit runs inside
    /// a run's reconciliation or a scope's end.
    void **released;
    intptr_t releasedCount;
    intptr_t releasedCapacity;
} tracking_thread;

/// Lanes handed out so far (`tracking_lane`).
extern uint32_t tracking_lanes_assigned;

/// The slot chain (0 or 1) the calling thread installs in: threads take turns, in the order of their
/// first install, so that two threads tracking the same objects claim slots on lines of their own.
static inline __attribute__((always_inline)) uint32_t tracking_lane(tracking_thread *state) {
    if (state->lane == 0) state->lane = 1 + (__atomic_fetch_add(&tracking_lanes_assigned, 1, __ATOMIC_RELAXED) & 1);
    return state->lane - 1;
}

/// A sentinel `Dependency` (its layout's first word, the key, is 1: no object's address; the rest
/// zero), where `tracking_run.dependencies` and `cursor` point outside a reusable scope's run,
/// after two leading sentinels as every dependency buffer has (`DependencyBuffer`): 16 words of 1
/// (two dependencies of at most 64 bytes), then the sentinel's 8 words.
#define TRACKING_NO_DEPENDENCIES_OFFSET 16
#define TRACKING_NO_DEPENDENCIES_WORDS 24
extern uintptr_t tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_WORDS];

/// The address no object has, that a sentinel dependency holds (`tracking_no_dependencies_address()`).
#define TRACKING_NO_OBJECT ((uintptr_t)1)

/// The writes in flight in an object's write word (`WriteWord.inFlightMask`).
#define TRACKING_IN_FLIGHT_MASK 0xFFFFFFULL

static inline __attribute__((always_inline)) void *tracking_no_dependencies_address(void) {
    return &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET];
}

/// The calling thread's state. Swift reads `tracking_current.depth` directly (an inlined TLS load,
/// `_trackingDepth`) on every tracked get and set; everything else goes through
/// `tracking_thread_state()`.
extern _Thread_local tracking_thread tracking_current __attribute__((tls_model("initial-exec")));

/// The calling thread's tracking state.
static inline __attribute__((always_inline)) tracking_thread *tracking_thread_state(void) {
    return &tracking_current;
}

/// A registrar's process-wide words (each registrar has its own: this one's, `tracking_lockfree`;
/// the locked registrar's, in CLockedTracking).
///
/// `writesInFlight[0]` counts the observed writes in flight in the process:
/// `TrackedObject._beginObservedWrite` adds one before its write word's increment, `didMutate`
/// takes it away after the write's end (see `_writes`). A reusable scope's run loads it once, after
/// arming (`ReusableScope.run`): while it is 0 a kept read needs no look at its object's write word.
/// The rest of the array pads its lines (and the next, which x86 prefetches with it).
///
/// `scopeChunks` and `storeChunks` are the scope table's chunk arrays (`ScopeTable.chunks`,
/// `storeChunks`), published once, with release, by the table's initialiser, before any record
/// index exists: plain words, so that the registrar's hot paths reach a record with one load
/// (acquire: a plain load on x86) instead of the lazy `ScopeTable.shared`'s `swift_once` call.
typedef struct tracking_registrar {
    uint64_t writesInFlight[16];
    void *scopeChunks;
    void *storeChunks;
    void *padding[14];  ///< The chunks' line and the next are theirs alone.
} tracking_registrar;

/// The alignment of each registrar's words (on the variable: Swift imports no over-aligned type).
#define TRACKING_REGISTRAR_ALIGNMENT 128

/// This registrar's words.
extern tracking_registrar tracking_lockfree;

static inline __attribute__((always_inline)) tracking_registrar *tracking_lockfree_registrar(void) {
    return &tracking_lockfree;
}

/// One more observed write in flight (seq_cst: before the writer's scan, in the single total order).
static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
void tracking_observed_write_begins(tracking_registrar *registrar) {
    __atomic_fetch_add(&registrar->writesInFlight[0], 1, __ATOMIC_SEQ_CST);
}

/// One observed write fewer in flight, after its store and its end (release: a run that loads the
/// count after this sees the store).
static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
void tracking_observed_write_ends(tracking_registrar *registrar) {
    __atomic_fetch_sub(&registrar->writesInFlight[0], 1, __ATOMIC_RELEASE);
}

/// Whether any observed write is in flight (seq_cst: after the run's arming, in the single total order).
static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
_Bool tracking_observed_writes_are_in_flight(tracking_registrar *registrar) {
    return __atomic_load_n(&registrar->writesInFlight[0], __ATOMIC_SEQ_CST) != 0;
}

static inline __attribute__((always_inline)) void *tracking_scope_chunks_get(tracking_registrar *registrar) {
    return __atomic_load_n(&registrar->scopeChunks, __ATOMIC_ACQUIRE);
}

static inline __attribute__((always_inline)) void *tracking_store_chunks_get(tracking_registrar *registrar) {
    return __atomic_load_n(&registrar->storeChunks, __ATOMIC_ACQUIRE);
}

static inline void tracking_scope_chunks_publish(tracking_registrar *registrar, void *chunks, void *stores) {
    __atomic_store_n(&registrar->storeChunks, stores, __ATOMIC_RELEASE);
    __atomic_store_n(&registrar->scopeChunks, chunks, __ATOMIC_RELEASE);
}

/// An atomic load with acquire of a word another thread changes atomically, for a getter's path:
/// the optimiser is told it releases nothing (`@_effects(releasenone)`: around a Swift atomic load
/// in a getter, the optimiser retains and releases the object it reads).
static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
uint64_t tracking_load_acquire(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Whether a write word (either registrar's: its low 24 bits count writes in flight) counts a write
/// in flight, loaded with acquire; told it releases nothing, as `tracking_load_acquire`.
static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
_Bool tracking_write_in_flight(const uint64_t *word) {
    return (__atomic_load_n(word, __ATOMIC_ACQUIRE) & TRACKING_IN_FLIGHT_MASK) != 0;
}

/// The `seen` slot for `object`.
static inline __attribute__((always_inline)) tracking_seen *tracking_seen_slot(tracking_thread *state, const void *object) {
    return &state->seen[((uintptr_t)object >> 4) & (TRACKING_SEEN_COUNT - 1)];
}

/// Grows `entries` to hold at least one more entry. Registers a thread-exit destructor on first use.
void tracking_grow_entries(tracking_thread *state);

/// Grows `pending` to hold at least one more index.
void tracking_grow_pending(tracking_thread *state);

/// Grows `released` to hold at least one more object.
void tracking_grow_released(tracking_thread *state);

/// `buffer` (`*capacity` elements of `element` bytes) grown to twice its capacity, at least 16;
/// aborts when memory runs out. Both registrars' thread buffers grow so.
void *tracking_grow_buffer(void *buffer, intptr_t *capacity, size_t element);

// Observation's tracking, seen from the bridge (`ObservationBridge`). `withObservationTracking`
// keeps the access list it fills in a thread-local of the Observation runtime, non-null while a
// tracking's `apply` runs on the thread. The runtime exports no way to read it, so the bridge reads
// it where it lives: the first word of libswiftObservation's thread-local block. Whether that
// word is the tracking's is checked once per process (`ObservationBridge.readsTrackingDirectly`);
// where it is not, or the block cannot be found, a bridged model tells Observation of every read.

/// The calling thread's view of Observation's tracking: the address of the word that is non-null
/// while a tracking's `apply` runs, or, once the bridge found it cannot read it, of a word that is
/// always non-null; NULL until the thread's first bridged read resolves it.
extern _Thread_local void *const *tracking_observation_word __attribute__((tls_model("initial-exec")));

/// The calling thread's thread-local block of libswiftObservation (its first word is the
/// tracking's), or NULL where the library or its block cannot be found (not glibc, not loaded as a
/// shared library, or turned off by `LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL`).
void *const *tracking_observation_block(void);

/// A word that is always non-null: what a thread reads when the bridge cannot read Observation's.
extern void *const tracking_observation_always;

/// The address of `tracking_observation_always`, handed out by C: a global's, the same in every
/// build configuration (Swift's `withUnsafePointer(to:)` on an imported constant may give the
/// address of a temporary copy).
void *const *tracking_observation_always_address(void);

/// Whether this C library can find Observation's thread-local block at all (glibc's `dlinfo` with
/// `RTLD_DI_TLS_DATA`); where it cannot, every bridged read goes to Observation's registrar.
_Bool tracking_observation_block_is_supported(void);

/// The Swift runtime's own test (exported by libswiftCore): whether `object`'s deinit has begun.
/// A read of such an object is not recorded (by either registrar): retaining it would resurrect it.
_Bool swift_isDeallocating(void *object);

#endif
