VM_SUITES += zdebug
zdebug_VM_PROGS := debug.sh
zdebug_VM_FILES := selftests/zdebug/debug.sh
zdebug_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
