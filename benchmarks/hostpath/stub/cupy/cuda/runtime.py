"""The stand-in's runtime: an H200's properties, memsets done on the host."""

import ctypes


def getDevice():
    return 0


def getDeviceCount():
    return 1


def getDeviceProperties(device_id):
    return {"l2CacheSize": 50 * 2**20, "multiProcessorCount": 132, "name": b"stand-in",
            "totalGlobalMem": 140 * 2**30, "major": 9, "minor": 0}


def memsetAsync(ptr, value, size, stream):
    ctypes.memset(ptr, value, size)


def memGetInfo():
    return (100 * 2**30, 140 * 2**30)


def deviceSynchronize():
    pass


def runtimeGetVersion():
    return 12080


def driverGetVersion():
    return 12080


def deviceGetAttribute(attribute, device_id):
    """cudaDevAttrMultiProcessorCount (16): 132; cudaDevAttrCooperativeLaunch (95): 1."""
    return {16: 132, 95: 1}[attribute]
