import { useCallback, useEffect, useRef, useState } from 'react';
import { setVerificationHandler } from '../../lib/api-client';
import { SecurityVerificationModal } from './security-verification-modal';
import './security-verification.css';

/**
 * Mounted once at the top of the console: when a call answers VERIFICATION_REQUIRED, the API
 * client asks this host, which opens the modal and tells the client whether to send the call
 * again. Calls that need it at the same time share one modal.
 */
export function SecurityVerificationHost() {
  const [open, setOpen] = useState(false);
  const pending = useRef<{ promise: Promise<boolean>; resolve: (verified: boolean) => void } | null>(null);

  useEffect(
    () =>
      setVerificationHandler(() => {
        if (pending.current) return pending.current.promise;
        let resolve: (verified: boolean) => void = () => undefined;
        const promise = new Promise<boolean>((settle) => {
          resolve = settle;
        });
        pending.current = { promise, resolve };
        setOpen(true);
        return promise;
      }),
    [],
  );

  const finish = useCallback((verified: boolean) => {
    pending.current?.resolve(verified);
    pending.current = null;
    setOpen(false);
  }, []);
  const onVerified = useCallback(() => finish(true), [finish]);
  const onCancel = useCallback(() => finish(false), [finish]);

  return <SecurityVerificationModal visible={open} onVerified={onVerified} onCancel={onCancel} />;
}
