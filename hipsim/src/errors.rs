//! `hipGetErrorName` / `hipGetErrorString`. The codes come from dsxor's
//! checked-in bindings (bindgen of hip_runtime_api.h) and each name is the
//! constant's own identifier, so neither can drift from the header.

use dsxor::hip::sys::hipError_t as E;
use std::ffi::CStr;

macro_rules! names {
    ($($n:ident),* $(,)?) => {
        // NUL-terminated copies of the identifiers, for the C ABI.
        &[$((E::$n, concat!(stringify!($n), "\0"))),*]
    };
}

/// Where two names share a code (hipErrorOutOfMemory = hipErrorMemoryAllocation,
/// hipErrorNotInitialized = hipErrorInitializationError, hipErrorInvalidHandle =
/// hipErrorInvalidResourceHandle) the first is what clr's `ihipGetErrorName`
/// returns (hipamd/src/hip_error.cpp).
const NAMES: &[(E, &str)] = names![
    hipSuccess,
    hipErrorInvalidValue,
    hipErrorOutOfMemory,
    hipErrorMemoryAllocation,
    hipErrorNotInitialized,
    hipErrorInitializationError,
    hipErrorDeinitialized,
    hipErrorProfilerDisabled,
    hipErrorProfilerNotInitialized,
    hipErrorProfilerAlreadyStarted,
    hipErrorProfilerAlreadyStopped,
    hipErrorInvalidConfiguration,
    hipErrorInvalidPitchValue,
    hipErrorInvalidSymbol,
    hipErrorInvalidDevicePointer,
    hipErrorInvalidMemcpyDirection,
    hipErrorInsufficientDriver,
    hipErrorMissingConfiguration,
    hipErrorPriorLaunchFailure,
    hipErrorInvalidDeviceFunction,
    hipErrorNoDevice,
    hipErrorInvalidDevice,
    hipErrorInvalidImage,
    hipErrorInvalidContext,
    hipErrorContextAlreadyCurrent,
    hipErrorMapFailed,
    hipErrorMapBufferObjectFailed,
    hipErrorUnmapFailed,
    hipErrorArrayIsMapped,
    hipErrorAlreadyMapped,
    hipErrorNoBinaryForGpu,
    hipErrorAlreadyAcquired,
    hipErrorNotMapped,
    hipErrorNotMappedAsArray,
    hipErrorNotMappedAsPointer,
    hipErrorECCNotCorrectable,
    hipErrorUnsupportedLimit,
    hipErrorContextAlreadyInUse,
    hipErrorPeerAccessUnsupported,
    hipErrorInvalidKernelFile,
    hipErrorInvalidGraphicsContext,
    hipErrorInvalidSource,
    hipErrorFileNotFound,
    hipErrorSharedObjectSymbolNotFound,
    hipErrorSharedObjectInitFailed,
    hipErrorOperatingSystem,
    hipErrorInvalidHandle,
    hipErrorInvalidResourceHandle,
    hipErrorIllegalState,
    hipErrorNotFound,
    hipErrorNotReady,
    hipErrorIllegalAddress,
    hipErrorLaunchOutOfResources,
    hipErrorLaunchTimeOut,
    hipErrorPeerAccessAlreadyEnabled,
    hipErrorPeerAccessNotEnabled,
    hipErrorSetOnActiveProcess,
    hipErrorContextIsDestroyed,
    hipErrorAssert,
    hipErrorHostMemoryAlreadyRegistered,
    hipErrorHostMemoryNotRegistered,
    hipErrorLaunchFailure,
    hipErrorCooperativeLaunchTooLarge,
    hipErrorNotSupported,
    hipErrorStreamCaptureUnsupported,
    hipErrorStreamCaptureInvalidated,
    hipErrorStreamCaptureMerge,
    hipErrorStreamCaptureUnmatched,
    hipErrorStreamCaptureUnjoined,
    hipErrorStreamCaptureIsolation,
    hipErrorStreamCaptureImplicit,
    hipErrorCapturedEvent,
    hipErrorStreamCaptureWrongThread,
    hipErrorGraphExecUpdateFailure,
    hipErrorUnknown,
    hipErrorRuntimeMemory,
    hipErrorRuntimeOther,
    hipErrorTbd,
];

/// clr's `ihipGetErrorString` texts (hipamd/src/hip_error.cpp) for the
/// codes this runtime returns; other codes get their name.
const STRINGS: &[(E, &str)] = &[
    (E::hipSuccess, "no error\0"),
    (E::hipErrorInvalidValue, "invalid argument\0"),
    (E::hipErrorOutOfMemory, "out of memory\0"),
    (E::hipErrorNotInitialized, "initialization error\0"),
    (
        E::hipErrorInvalidConfiguration,
        "invalid configuration argument\0",
    ),
    (E::hipErrorInvalidDevicePointer, "invalid device pointer\0"),
    (E::hipErrorNoDevice, "no ROCm-capable device is detected\0"),
    (E::hipErrorInvalidDevice, "invalid device ordinal\0"),
    (E::hipErrorInvalidImage, "device kernel image is invalid\0"),
    (
        E::hipErrorNoBinaryForGpu,
        "no kernel image is available for execution on the device\0",
    ),
    (E::hipErrorInvalidHandle, "invalid resource handle\0"),
    (E::hipErrorNotFound, "named symbol not found\0"),
    (E::hipErrorNotReady, "device not ready\0"),
    (
        E::hipErrorIllegalAddress,
        "an illegal memory access was encountered\0",
    ),
    (
        E::hipErrorLaunchOutOfResources,
        "too many resources requested for launch\0",
    ),
    (E::hipErrorContextIsDestroyed, "context is destroyed\0"),
    (E::hipErrorLaunchFailure, "unspecified launch failure\0"),
    (E::hipErrorNotSupported, "operation not supported\0"),
    (E::hipErrorUnknown, "unknown error\0"),
];

fn lookup(table: &[(E, &'static str)], code: E) -> Option<&'static CStr> {
    table
        .iter()
        .find(|(c, _)| *c == code)
        .and_then(|(_, s)| CStr::from_bytes_with_nul(s.as_bytes()).ok())
}

/// clr returns "hipErrorUnknown" for a code it does not know.
pub fn name(code: E) -> &'static CStr {
    lookup(NAMES, code).unwrap_or(c"hipErrorUnknown")
}

pub fn string(code: E) -> &'static CStr {
    lookup(STRINGS, code)
        .or_else(|| lookup(NAMES, code))
        .unwrap_or(c"unknown error")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings() {
        assert_eq!(
            name(E::hipErrorNoDevice).to_str().unwrap(),
            "hipErrorNoDevice"
        );
        assert_eq!(name(E(100)).to_str().unwrap(), "hipErrorNoDevice");
        assert_eq!(name(E(2)).to_str().unwrap(), "hipErrorOutOfMemory");
        assert_eq!(name(E(400)).to_str().unwrap(), "hipErrorInvalidHandle");
        assert_eq!(name(E(12345)).to_str().unwrap(), "hipErrorUnknown");
        assert_eq!(
            string(E::hipErrorNoDevice).to_str().unwrap(),
            "no ROCm-capable device is detected"
        );
        assert_eq!(
            string(E::hipErrorAssert).to_str().unwrap(),
            "hipErrorAssert"
        );
    }
}
