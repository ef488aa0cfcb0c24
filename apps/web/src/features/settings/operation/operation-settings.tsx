/** The operation tab (spec 01 §2): super administrators only. */
export function OperationSettings() {
  return <div className="mg-option-tab" />;
}
