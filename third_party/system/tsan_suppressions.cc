// ThreadSanitizer's suppressions for the system libraries, built into every test binary of a
// --config=tsan build (NNREMOTE_TSAN; empty otherwise). Debian's gRPC, abseil, protobuf and
// OpenSSL are not instrumented: TSan sees what they do only through intercepted calls (file
// descriptors, memcpy, thread creation), while the synchronization that orders those calls
// happens in their uninstrumented code. Without these, every test reports races inside gRPC's
// event engine and abseil's mutex. Races in our own code are still reported: our accesses are
// instrumented. TSan wants one library per line (a pattern may not match two). libprotobuf is
// not listed: its map fields lock a mutex inside the library and unlock it in header code
// compiled into ours, and TSan must see both.
#ifdef NNREMOTE_TSAN
extern "C" const char* __tsan_default_suppressions() {
  return
         // gRPC's C++ header code, compiled into our binaries and so instrumented, hands its call
         // state between threads through libgrpc's completion queues, which TSan cannot see.
         // Only races whose innermost frame is that code are dropped.
         "race_top:^grpc::\n"
         "race_top:^std::_Function_handler<void (bool), grpc::\n"
         "race_top:^std::_Function_handler<grpc::\n"
         // libgrpc's channel arguments, shared between its threads by reference counts in
         // libstdc++ code inlined into ours.
         "race:grpc_core::AVL<\n"
         // A finished stream's writer (or reader-writer), freed by gRPC once its last callback is done.
         "race:ServerCallbackWriterImpl::~ServerCallbackWriterImpl\n"
         "race:ServerCallbackReaderWriterImpl::~ServerCallbackReaderWriterImpl\n"
         "race:ServerCallbackReaderImpl::~ServerCallbackReaderImpl\n"
         // A callback reactor's message, which gRPC parses into (or serializes from) on its own
         // threads after our thread handed it over with StartRead/StartWrite/Finish.
         "race:grpc::internal::CallOpRecvMessage<\n"
         "race:grpc::internal::CallOpSendMessage::\n"
         "race:grpc::internal::CallOpSendMessage<\n"
         // A client callback's function object, made by our thread and run on gRPC's.
         "race:grpc::internal::CatchingCallback<\n"
         // Our reactors, freed in OnDone once gRPC has called it: Finish(), which reads the
         // reactor's call pointer in gRPC's header code after our hand-off mark, happens before
         // OnDone only through libgrpc.
         "race:BurstReactor::OnDone\n"
         "race:FenceReactor::OnDone\n"
         "race:SessionWatchService::MultiWatch::OnDone\n"
         // A unary callback's call state (context, request, response), used by our handler on a
         // pool thread before Finish(), then freed by gRPC's header code once the call is done.
         "race:grpc::internal::CallbackUnaryHandler<\n"
         // The same call state freed by the finishing op set's own cleanup, run by libgrpc++ on a
         // callback thread (seen once in cache_state_test's npu_emulator, for a response its pool
         // thread wrote).
         "race:grpc::internal::CallOpSet<grpc::internal::CallOpSendInitialMetadata, "
         "grpc::internal::CallOpSendMessage, grpc::internal::CallOpServerSendStatus,\n"
         "race:UploadReactor::OnDone\n"
         "race:DownloadReactor::OnDone\n"
         // The function object in a callback server's request tag: libgrpc++ makes the next
         // request on whichever thread is polling (in a test, often the client's own blocking
         // call) and runs and destroys it on a callback thread, handing it over inside libgrpc.
         // Only races whose innermost frame is a std::function's destructor are dropped.
         "race_top:^std::_Function_base::~_Function_base\n"
         // A descriptor's number used again. The unix listener hands each connection to gRPC
         // (AddInsecureChannelFromFd), which closes it inside libgrpc, where TSan does not see
         // the close; opendir does not tell TSan of the descriptor it opens either, so closing a
         // directory that got the same number "races" with the listener's last use of it.
         "race_top:closedir$\n"  // the interceptor: __interceptor_closedir
         "called_from_lib:libabsl_bad_optional_access.so*\n"
         "called_from_lib:libabsl_bad_variant_access.so*\n"
         "called_from_lib:libabsl_base.so*\n"
         "called_from_lib:libabsl_city.so*\n"
         "called_from_lib:libabsl_civil_time.so*\n"
         "called_from_lib:libabsl_cord.so*\n"
         "called_from_lib:libabsl_cord_internal.so*\n"
         "called_from_lib:libabsl_cordz_functions.so*\n"
         "called_from_lib:libabsl_cordz_handle.so*\n"
         "called_from_lib:libabsl_cordz_info.so*\n"
         "called_from_lib:libabsl_debugging_internal.so*\n"
         "called_from_lib:libabsl_demangle_internal.so*\n"
         "called_from_lib:libabsl_exponential_biased.so*\n"
         "called_from_lib:libabsl_graphcycles_internal.so*\n"
         "called_from_lib:libabsl_hash.so*\n"
         "called_from_lib:libabsl_hashtablez_sampler.so*\n"
         "called_from_lib:libabsl_int128.so*\n"
         "called_from_lib:libabsl_log_severity.so*\n"
         "called_from_lib:libabsl_low_level_hash.so*\n"
         "called_from_lib:libabsl_malloc_internal.so*\n"
         "called_from_lib:libabsl_random_internal_platform.so*\n"
         "called_from_lib:libabsl_random_internal_pool_urbg.so*\n"
         "called_from_lib:libabsl_random_internal_randen.so*\n"
         "called_from_lib:libabsl_random_internal_randen_hwaes.so*\n"
         "called_from_lib:libabsl_random_internal_randen_hwaes_impl.so*\n"
         "called_from_lib:libabsl_random_internal_randen_slow.so*\n"
         "called_from_lib:libabsl_random_internal_seed_material.so*\n"
         "called_from_lib:libabsl_random_seed_gen_exception.so*\n"
         "called_from_lib:libabsl_raw_hash_set.so*\n"
         "called_from_lib:libabsl_raw_logging_internal.so*\n"
         "called_from_lib:libabsl_spinlock_wait.so*\n"
         "called_from_lib:libabsl_stacktrace.so*\n"
         "called_from_lib:libabsl_status.so*\n"
         "called_from_lib:libabsl_statusor.so*\n"
         "called_from_lib:libabsl_str_format_internal.so*\n"
         "called_from_lib:libabsl_strerror.so*\n"
         "called_from_lib:libabsl_strings.so*\n"
         "called_from_lib:libabsl_strings_internal.so*\n"
         "called_from_lib:libabsl_symbolize.so*\n"
         "called_from_lib:libabsl_synchronization.so*\n"
         "called_from_lib:libabsl_throw_delegate.so*\n"
         "called_from_lib:libabsl_time.so*\n"
         "called_from_lib:libabsl_time_zone.so*\n"
         "called_from_lib:libaddress_sorting.so*\n"
         "called_from_lib:libcares.so*\n"
         "called_from_lib:libcrypto.so*\n"
         "called_from_lib:libgpr.so*\n"
         "called_from_lib:libgrpc++.so*\n"
         "called_from_lib:libgrpc.so*\n"
         "called_from_lib:libre2.so*\n"
         "called_from_lib:libssl.so*\n"
         "called_from_lib:libupb.so*\n";
}
#endif
