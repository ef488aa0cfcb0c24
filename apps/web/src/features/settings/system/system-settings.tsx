/** The system tab (spec 01 §2): super administrators only. */
export function SystemSettings() {
  return <div className="mg-option-tab" />;
}
